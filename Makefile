# On a fresh machine with Python 3 and make:
#   make demo   runs the embedded demo benchmark, compares it with a baseline and prints the summary
#   make test   installs everything into .venv and runs the whole test suite with ruff and mypy
#   make perf   measures the speed and memory targets and prints one table (PERF_ARGS=--quick: a smoke run)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP_CORE := $(VENV)/.installed-core
STAMP_ALL := $(VENV)/.installed-all

.PHONY: demo test lint typecheck unit perf clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_CORE): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_ALL): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $@ $(STAMP_CORE)

demo: $(STAMP_CORE)
	$(BIN)/python benchmarks/demo.py

lint: $(STAMP_ALL)
	$(BIN)/ruff check src tests benchmarks examples framework-examples
	$(BIN)/ruff format --check src tests benchmarks examples framework-examples

typecheck: $(STAMP_ALL)
	$(BIN)/mypy

# four worker processes (pytest-xdist): most tests wait on subprocesses, servers and deadlines, so even
# two cores keep four busy; a worker that runs dry takes tests queued for another (worksteal), so the
# long ones do not end the run alone. 8-11 minutes instead of 16 on 2 cores (2026-12-06)
unit: $(STAMP_ALL)
	$(BIN)/python -m pytest -q -n 4 --dist worksteal

test: lint typecheck unit

# builds its own venvs under .perf-cache/ (this tree, the reference commits, ezvals 0.2.0); times nothing in CI
perf:
	$(PYTHON) benchmarks/perf/table.py $(PERF_ARGS)

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
