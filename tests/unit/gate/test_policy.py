"""Policy sources, precedence, glob overrides and errors that name the offending key."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.errors import PolicyError
from agent_evals.gate.policy import Knobs, PolicyBlock, discover_repo_config, resolve_policy


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults__match_gate_md() -> None:
    knobs = resolve_policy(repo_config=None, suite_blocks={}, overrides={}).effective
    assert knobs == Knobs(
        min_pass_rate=None, max_drop=0.05, alpha=0.05, max_error_rate=0.05,
        on_missing_baseline="warn", on_inconclusive="warn", critical="fail",
    )  # fmt: skip


def test_precedence__defaults_repo_suite_block_cli(tmp_path: Path) -> None:
    repo = write(
        tmp_path / "agent-evals.yaml", "gate:\n  max_drop: 0.1\n  alpha: 0.01\n  min_pass_rate: 0.5\n"
    )
    pol = resolve_policy(
        repo_config=repo,
        suite_blocks={"home": {"max_drop": 0.2, "alpha": 0.02}},
        overrides={"max_drop": 0.3, "max_error_rate": None},
    )
    home, other = pol.knobs_for("home"), pol.knobs_for("other")
    assert (home.max_drop, home.alpha, home.min_pass_rate) == (0.3, 0.02, 0.5)
    assert (other.max_drop, other.alpha, other.max_error_rate) == (0.3, 0.01, 0.05)
    assert pol.sources == ["defaults", str(repo), "suite home gate block", "command line"]


def test_pyproject_table__read_as_repo_config(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.agent-evals.gate]\nmax_drop = 0.08\n')
    found = discover_repo_config(tmp_path)
    assert found == tmp_path / "pyproject.toml"
    assert resolve_policy(repo_config=found, suite_blocks={}, overrides={}).effective.max_drop == 0.08


def test_discover__yaml_before_pyproject_and_none_without_gate(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    assert discover_repo_config(tmp_path) is None
    write(tmp_path / "agent-evals.yaml", "gate: {}\n")
    assert discover_repo_config(tmp_path) == tmp_path / "agent-evals.yaml"


def test_policy_file__bare_block_accepted(tmp_path: Path) -> None:
    path = write(tmp_path / "strict.yaml", "alpha: 0.01\non_inconclusive: fail\n")
    knobs = resolve_policy(repo_config=path, suite_blocks={}, overrides={}).effective
    assert (knobs.alpha, knobs.on_inconclusive) == (0.01, "fail")


def test_overrides__suite_and_group_globs() -> None:
    pol = resolve_policy(
        repo_config=None,
        suite_blocks={"home-v1": {"overrides": {"doors": {"min_pass_rate": 0.9}}}},
        overrides={},
    )
    repo_like = PolicyBlock.model_validate(
        {"overrides": {"home-*": {"max_drop": 0.1}, "home-v1/lig*": {"alpha": 0.1}}}
    )
    pol.layers.insert(
        0, pol.layers[0].model_copy(update={"source": "repo", "suite": None, "block": repo_like})
    )
    assert pol.knobs_for("home-v1").max_drop == 0.1
    assert pol.knobs_for("home-v2").max_drop == 0.1
    assert pol.knobs_for("work").max_drop == 0.05
    assert pol.knobs_for("home-v1", "doors").min_pass_rate == 0.9
    assert pol.knobs_for("home-v1", "lights").alpha == 0.1
    assert pol.knobs_for("home-v1", "fans").alpha == 0.05
    assert pol.group_is_gated("home-v1", "doors") and pol.group_is_gated("home-v1", "lights")
    assert not pol.group_is_gated("home-v1", "fans")  # a suite-level glob does not gate each group
    assert [o.pattern for o in pol.overrides] == ["home-*", "home-v1/lig*", "home-v1/doors"]


def test_cli_flags__win_over_group_overrides() -> None:
    pol = resolve_policy(
        repo_config=None,
        suite_blocks={"home": {"overrides": {"doors": {"max_drop": 0.2}}}},
        overrides={"max_drop": 0.01},
    )
    assert pol.knobs_for("home", "doors").max_drop == 0.01


@pytest.mark.parametrize(
    ("blocks", "flags", "message"),
    [
        ({"home": {"max_drop": "lots"}}, {}, r"suite home: invalid policy value for 'gate.max_drop'"),
        ({"home": {"alpha": 0.7}}, {}, r"'gate.alpha'.*less than 0.5"),
        (
            {"home": {"on_missing_baseline": "maybe"}},
            {},
            r"'gate.on_missing_baseline'.*'pass', 'warn' or 'fail'",
        ),
        ({"home": {"max_dorp": 0.1}}, {}, r"'gate.max_dorp'.*known keys: min_pass_rate"),
        (
            {"home": {"overrides": {"doors": {"min_pass_rate": 2}}}},
            {},
            r"'gate.overrides.doors.min_pass_rate'",
        ),
        ({"home": ["max_drop"]}, {}, r"'gate' must be a mapping"),
        ({}, {"max_drop": -1}, r"command line: invalid policy value for '--max-drop'"),
        ({}, {"min-pass-rate": 1.5}, r"'--min-pass-rate'"),
    ],
)
def test_invalid_values__policy_error_names_key(blocks: dict, flags: dict, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        resolve_policy(repo_config=None, suite_blocks=blocks, overrides=flags)


def test_invalid_repo_config__error_names_file_and_key(tmp_path: Path) -> None:
    path = write(tmp_path / "agent-evals.yaml", "gate:\n  max_error_rate: high\n")
    with pytest.raises(
        PolicyError, match=r"agent-evals.yaml:2:3: invalid policy value for 'gate.max_error_rate'"
    ):
        resolve_policy(repo_config=path, suite_blocks={}, overrides={})


def test_invalid_toml__error_names_file(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", "[tool.agent-evals.gate\n")
    with pytest.raises(PolicyError, match=r"cannot read policy from .*pyproject\.toml"):
        resolve_policy(repo_config=path, suite_blocks={}, overrides={})


def test_policy_error__is_exit_code_2() -> None:
    assert PolicyError("x").exit_code == 2


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # `true` would be read as 1.0: a max_drop or max_error_rate of 100 points, a gate that cannot fail
        ("agent-evals.yaml", "gate:\n  max_drop: true\n"),
        ("agent-evals.yaml", "gate:\n  max_error_rate: true\n"),
        ("agent-evals.yaml", "gate:\n  overrides:\n    home: {max_drop: true}\n"),
        ("agent-evals.yaml", "gate:\n  max_latency_increase: true\n"),  # "turn it on" is no limit
        ("agent-evals.yaml", "gate:\n  min_pass_rate: false\n"),
        ("pyproject.toml", "[tool.agent-evals.gate]\nmax_drop = true\n"),
        ("pyproject.toml", "[tool.agent-evals.gate]\nmax_cost_increase = true\n"),
    ],
)
def test_numeric_knob_given_a_boolean__refused_not_read_as_one(tmp_path: Path, name: str, text: str) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(PolicyError, match=r"Input should be a number \(a fraction of 1.*not a boolean"):
        resolve_policy(repo_config=path, suite_blocks={}, overrides={})


@pytest.mark.parametrize(
    "key", ["max_drop", "max_error_rate", "min_pass_rate", "alpha", "max_tokens_increase"]
)
def test_numeric_knob_given_a_boolean__suite_block_refused_too(key: str) -> None:
    with pytest.raises(
        PolicyError, match=rf"suite home: invalid policy value for 'gate.{key}'.*not a boolean"
    ):
        resolve_policy(repo_config=None, suite_blocks={"home": {key: True}}, overrides={})


def test_usage_knob_false__still_turns_the_check_off() -> None:
    knobs = resolve_policy(
        repo_config=None, suite_blocks={"home": {"max_cost_increase": False}}, overrides={}
    )
    assert knobs.knobs_for("home").max_cost_increase is None


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # each of these was read as no policy at all: the defaults applied and the floor never failed
        (
            "pyproject.toml",
            "[tool.agent_evals.gate]\nmin_pass_rate = 0.9\n",
            r"\[tool.agent_evals\] is not read",
        ),
        (
            "pyproject.toml",
            "[tool.agent-evals]\nmin_pass_rate = 0.9\n",
            r"\[tool.agent-evals\] sets min_pass_rate",
        ),
        ("policy.toml", "min_pass_rate = 0.9\n", r"it has no \[tool.agent-evals.gate\] table"),
        (
            "agent-evals.yaml",
            "prices: {}\nmin_pass_rate: 0.9\n",
            r"agent-evals.yaml:2:1: 'min_pass_rate' is not read",
        ),
        ("agent-evals.yaml", "gates:\n  min_pass_rate: 0.9\n", r"agent-evals.yaml:1:1: 'gates' is not read"),
        (
            "policy.yaml",
            "gate:\n  max_drop: 0.1\nmin_pass_rate: 0.9\n",
            r"policy.yaml:3:1: 'min_pass_rate' is not read",
        ),
    ],
)
def test_policy_file__policy_keys_where_they_are_not_read__refused(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = write(tmp_path / name, text)
    with pytest.raises(PolicyError, match=message):
        resolve_policy(repo_config=path, suite_blocks={}, overrides={})


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("[tool.agent_evals.gate]\nmin_pass_rate = 0.9\n", True),  # found, to be refused when read
        ("[tool.agent-evals]\nmax_drop = 0.1\n", True),
        ("[tool.hatch.build]\npackages = ['src/agent_evals']\n", False),  # our name as a package only
        ("[tool.agent-evals.gate]\nmax_drop = 0.1\n", True),
    ],
)
def test_discover__a_pyproject_with_a_misplaced_policy_is_found_to_be_refused(
    tmp_path: Path, text: str, found: bool
) -> None:
    write(tmp_path / "pyproject.toml", text)
    assert discover_repo_config(tmp_path) == (tmp_path / "pyproject.toml" if found else None)
