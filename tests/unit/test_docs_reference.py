"""The docs name every CLI option and action input/output there is, and none that is not."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
import yaml

from agent_evals.cli.main import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
CLI_DOC = ROOT / "docs" / "cli.md"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))

FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
LONG_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
HEADING = re.compile(r"^## `agent-evals ([a-z]+)`$", re.M)
GROUP_FLAGS = {"--help", "-h", "--version"}

# Long options the docs name that belong to other programs, and which program.
FOREIGN = {
    "--allow-empty": "git commit",
    "--orphan": "git switch",
    "--auto": "git remote set-head",
    "--no-deps": "pip wheel",
    "--no-save": "ezvals run",
    "--quick": "benchmarks/perf scripts",
    "--ref": "benchmarks/perf/table.py",
    "--compare-ref": "benchmarks/perf/table.py",
    "--pin": "benchmarks/perf/table.py",
    "--core-venv": "benchmarks/perf/compare_speed.py",
    "--keep": "benchmarks/perf/compare_speed.py",
    "--only-renames": "benchmarks/perf/gate_simulation.py",
}


def _commands() -> dict[str, click.Command]:
    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in sorted(COMMANDS)}
    return {name: command for name, command in found.items() if command is not None}


def _options(command: click.Command) -> set[str]:
    """Every visible option of ``command``, long and short (``--help`` aside)."""
    return {
        opt
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden
        for opt in (*param.opts, *param.secondary_opts)
    } - GROUP_FLAGS


def _sections() -> dict[str, str]:
    """docs/cli.md by command, and its policy options section as ``"policy"``."""
    text = CLI_DOC.read_text(encoding="utf-8")
    text, _, policy = text.partition("\n## Policy options\n")
    parts = HEADING.split(text)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    sections["policy"] = policy
    return sections


def _table_options(section: str) -> set[str]:
    """The options in the first column of the section's option table."""
    cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `-")]
    return {flag for cell in cells for flag in FLAG.findall(cell)}


def test_cli_reference__every_command__has_its_section() -> None:
    assert sorted(set(_sections()) - {"policy"}) == sorted(_commands())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_cli_reference__a_commands_section__lists_exactly_its_options(name: str) -> None:
    sections = _sections()
    section = sections[name]
    listed = _table_options(section)
    if "(#policy-options)" in section:
        listed |= _table_options(sections["policy"])
    actual = _options(_commands()[name])
    assert sorted(actual - listed) == [], f"`{name}` options missing from docs/cli.md"
    assert sorted(listed - actual) == [], f"docs/cli.md lists options `{name}` does not take"


def test_docs__every_long_option_named__is_one_of_ours_or_a_known_tools() -> None:
    ours = set().union(*(_options(command) for command in _commands().values())) | GROUP_FLAGS
    stale = {
        f"{path.relative_to(ROOT)}: {flag}"
        for path in DOCS
        for flag in LONG_FLAG.findall(path.read_text(encoding="utf-8"))
        if flag not in ours and flag not in FOREIGN
    }
    assert sorted(stale) == [], "options no command takes (a removed or misspelt flag?)"


def _command_lines(text: str) -> list[tuple[str, str]]:
    """``(command, arguments)`` of each ``agent-evals COMMAND ...`` in the code blocks of ``text``;
    indented lines that follow one (a synopsis over several lines) belong to it."""
    found: list[tuple[str, str]] = []
    for block in re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S):
        for line in block.splitlines():
            line = re.split(r"\s#\s|&&|;", line)[0]
            match = re.search(r"agent-evals ([a-z]+)\b(.*)", line)
            if match:
                found.append((match.group(1), match.group(2)))
            elif found and line.startswith(" ") and line.strip().startswith(("[", "-")):
                found[-1] = (found[-1][0], found[-1][1] + " " + line)
            elif not line.startswith(" "):
                found.append(("", ""))  # a new statement: what follows belongs to no command
    return [(name, args) for name, args in found if name]


def test_docs__command_lines_in_code_blocks__use_only_that_commands_options() -> None:
    commands = _commands()
    wrong = []
    for path in DOCS:
        rel = path.relative_to(ROOT)
        for name, args in _command_lines(path.read_text(encoding="utf-8")):
            if name not in commands:
                continue  # not a command: words such as "agent-evals data" in a git message
            allowed = _options(commands[name]) | GROUP_FLAGS
            wrong += [f"{rel}: agent-evals {name} {f}" for f in FLAG.findall(args) if f not in allowed]
    assert wrong == []


def _table_names(path: Path, heading: str) -> set[str]:
    """The backticked names in the first column of the table under ``heading``."""
    text = path.read_text(encoding="utf-8")
    body = text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]
    cells = [line.split("|")[1] for line in body.splitlines() if line.startswith("| `")]
    return {name for cell in cells for name in re.findall(r"`([^`]+)`", cell)}


@pytest.mark.parametrize("doc", ["README.md", "docs/github-actions.md"])
@pytest.mark.parametrize(
    ("heading", "key"), [("### Action inputs", "inputs"), ("### Action outputs", "outputs")]
)
def test_action_tables__name_exactly_the_inputs_and_outputs_of_action_yml(
    doc: str, heading: str, key: str
) -> None:
    listed = _table_names(ROOT / doc, heading)
    declared = set(ACTION[key])
    assert sorted(declared - listed) == [], f"{key} of action.yml missing from {doc} ({heading})"
    assert sorted(listed - declared) == [], f"{doc} ({heading}) names {key} action.yml does not declare"
