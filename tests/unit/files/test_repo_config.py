"""files.repo_config: the repo config file found once, for the gate policy and the price table."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.errors import PolicyError
from agent_evals.files.repo_config import find_repo_config, load_config_yaml, may_hold_config, repo_yaml


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({}, None),
        ({"agent-evals.yml": "gate: {}\n"}, "agent-evals.yml"),
        ({"agent-evals.yaml": "", "agent-evals.yml": ""}, "agent-evals.yaml"),
        ({"pyproject.toml": "[tool.agent-evals.gate]\nmax_drop = 0.1\n"}, None),
    ],
    ids=["none", "yml", "yaml-first", "pyproject-not-yaml"],
)
def test_repo_yaml__files_in_directory__first_yaml_name(
    tmp_path: Path, files: dict[str, str], found: str | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert repo_yaml(tmp_path) == (tmp_path / found if found else None)


@pytest.mark.parametrize(
    ("text", "keys", "found"),
    [
        ("[tool.agent-evals]\nmax_drop = 0.1\n", ("max_drop",), True),
        ("[tool.agent-evals]\nmax_drop = 0.1\n", ("gate",), False),
        ("[tool.agent_evals]\nanything = 1\n", (), True),
        ('[project]\nname = "x"\n', ("gate",), False),
    ],
    ids=["known-key", "unknown-key", "misspelt-table", "no-table"],
)
def test_find_repo_config__pyproject_table__found_when_it_holds_a_table_key(
    tmp_path: Path, text: str, keys: tuple[str, ...], found: bool
) -> None:
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    assert find_repo_config(tmp_path, table_keys=keys) == (tmp_path / "pyproject.toml" if found else None)


@pytest.mark.parametrize(
    ("text", "document", "error"),
    [
        ("", None, None),
        ("prices:\n  m: {input: 1}\n", {"prices": {"m": {"input": 1}}}, None),
        ("a: [\n", None, "cannot read prices from "),
    ],
    ids=["empty", "mapping", "broken"],
)
def test_load_config_yaml__text__document_or_policy_error(
    tmp_path: Path, text: str, document: object, error: str | None
) -> None:
    path = tmp_path / "agent-evals.yaml"
    path.write_text(text, encoding="utf-8")
    if error is not None:
        with pytest.raises(PolicyError, match=error):
            load_config_yaml(path, what="prices")
        return
    data, locate = load_config_yaml(path, what="prices")
    assert data == document
    assert locate(("prices",)).startswith(str(path))


@pytest.mark.parametrize(
    ("files", "may_hold", "found"),
    [
        ({}, False, None),
        ({"agent-evals.yaml": "gate: {}\n"}, True, "agent-evals.yaml"),
        ({"agent-evals.yml": "prices: {}\n"}, True, "agent-evals.yml"),
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, False, None),
        ({"pyproject.toml": "[project]\ndependencies = ['agent-evals']\n"}, True, None),
        ({"pyproject.toml": "[tool.agent-evals.gate]\nmax_drop = 0.1\n"}, True, "pyproject.toml"),
        ({"pyproject.toml": "[tool.agent_evals.gate]\nmax_drop = 0.1\n"}, True, "pyproject.toml"),
    ],
    ids=["none", "yaml", "yml", "pyproject-other", "pyproject-dependency", "pyproject-table", "misspelt"],
)
def test_may_hold_config__each_folder__never_false_where_a_config_is_found(
    tmp_path: Path, files: dict[str, str], may_hold: bool, found: str | None
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    located = find_repo_config(tmp_path, table_keys=("gate",))
    assert (located.name if located else None) == found
    assert may_hold_config(tmp_path) is may_hold
