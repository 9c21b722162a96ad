"""Custom scorers from YAML: `type: module:function` or `module:Class` with args, from the file's folder."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.runner import run_benchmark
from agent_evals.errors import BenchmarkFileError

Writer = Callable[..., Path]

SCORERS = """
from agent_evals import Score


def shouts(result, expected=None, **context):
    text = result.output or ""
    return Score(name="shouts", value=float(text.isupper()), passed=text.isupper())


def has_word(result, expected=None, *, word, **context):
    return Score(name="has_word", value=1.0, passed=word in (result.output or ""))


class MinLength:
    def __init__(self, min: int, name: str = "MinLength"):
        self.min = min
        self.name = name

    def __call__(self, result, expected=None, **context):
        ok = len(result.output or "") >= self.min
        return Score(name=self.name, value=float(ok), passed=ok)


class Broken:
    def __init__(self):
        raise RuntimeError("needs an API key")


def says_yes(result, expected=None, **context):
    return True


def explodes(result, expected=None, **context):
    raise KeyError("boom")


def three_args(input, output, expected):
    return Score(name="three", value=1.0, passed=True)


NOT_CALLABLE = 3
"""


def _echo(prompt: str) -> str:
    return prompt


def _setup(write: Writer, scorers: str, *, folder: str = "") -> tuple[Path, str]:
    """A one-scenario benchmark whose prompt is echoed; `scorers` is the YAML list, `{m}` the module."""
    module = f"custom_scorers_{uuid.uuid4().hex[:8]}"
    write(f"{folder}{module}.py", SCORERS)
    text = f"""
    benchmark: custom
    capabilities:
      - name: talk
        scenarios:
          - id: one
            prompt: "HELLO WORLD"
            success:
              scorers: {scorers.format(m=module)}
    """
    return write(f"{folder}bench.yaml", text), module


@pytest.mark.parametrize(
    ("scorers", "passed"),
    [
        ("[{{type: '{m}:shouts'}}]", True),
        ("[{{type: '{m}:has_word', word: WORLD}}]", True),
        ("[{{type: '{m}:has_word', word: planet}}]", False),
        ("[{{type: '{m}:MinLength', min: 5}}]", True),
        ("[{{type: '{m}:MinLength', min: 50}}]", False),
        ("[{{type: '{m}:shouts'}}, {{type: '{m}:MinLength', min: 50}}]", False),
    ],
)
def test_custom_scorer__decides_the_trial_with_its_args(write: Writer, scorers: str, passed: bool) -> None:
    path, _ = _setup(write, scorers)
    (case,) = run_benchmark(path, _echo).cases
    assert [t.passed for t in case.trials] == [passed]
    assert case.trials[0].error is None


def test_custom_scorer__imports_from_the_yaml_folder_not_the_working_directory(write: Writer) -> None:
    path, module = _setup(write, "[{{type: '{m}:shouts'}}]", folder="suite/")
    (case,) = run_benchmark(path, _echo).cases
    assert case.trials[0].passed
    assert not (Path.cwd() / f"{module}.py").exists()


@pytest.mark.parametrize(
    ("scorers", "message"),
    [
        ("[{{type: 'no_such_module_qq:score'}}]", "cannot import module 'no_such_module_qq'"),
        ("[{{type: '{m}:missing'}}]", "has no attribute 'missing'"),
        ("[{{type: '{m}:NOT_CALLABLE'}}]", "'NOT_CALLABLE' is a int, not callable"),
        ("[{{type: '{m}:MinLength'}}]", "invalid arguments for scorer"),
        ("[{{type: '{m}:MinLength', minimum: 3}}]", "invalid arguments for scorer"),
        ("[{{type: '{m}:has_word', wrd: x}}]", "missing a required argument: 'word'"),
        ("[{{type: '{m}:three_args'}}]", "cannot be called as scorer(result, expected=None, **context)"),
        ("[{{type: '{m}:Broken'}}]", "cannot be created: RuntimeError: needs an API key"),
        ("[{{type: 'a:b:c'}}]", "expected 'module:function' or 'module:Class'"),
    ],
)
def test_custom_scorer_that_cannot_be_built__located_error_at_load(
    write: Writer, scorers: str, message: str
) -> None:
    path, _ = _setup(write, scorers)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    assert message in str(caught.value)
    assert caught.value.key_path == "capabilities[0].scenarios[0].success.scorers[0]"
    assert (caught.value.file, caught.value.line) == ("bench.yaml", 8)


def test_custom_scorer_module_that_raises_on_import__located_error(write: Writer) -> None:
    path, module = _setup(write, "[{{type: '{m}:shouts'}}]")
    (path.parent / f"{module}.py").write_text("raise SystemExit('no')\n", encoding="utf-8")
    with pytest.raises(BenchmarkFileError, match=r"bench\.yaml:8:\d+: .*cannot import module .*SystemExit"):
        load_benchmark(path)


@pytest.mark.parametrize(
    ("function", "error"), [("says_yes", "returned bool"), ("explodes", "raised KeyError")]
)
def test_custom_scorer_that_misbehaves_when_scoring__trial_errors_never_passes(
    write: Writer, function: str, error: str
) -> None:
    path, _ = _setup(write, f"[{{{{type: '{{m}}:{function}'}}}}]")
    (case,) = run_benchmark(path, _echo).cases
    (trial,) = case.trials
    assert trial.passed is False
    assert trial.error is not None and error in trial.error
