"""StateMatch: dotted paths into the final state, per-example overrides, and failure metadata."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.adapters.scorers import StateMatch
from agent_evals.adapters.scorers.state import PATH_MISSING, resolve_path
from agent_evals.core.types import ExpectedResult, TaskResult

STATE = {
    "lights": {"kitchen": {"state": "on", "brightness": 80}, "hall": {"state": "off"}},
    "rooms": [{"name": "kitchen", "temp": 21.5}, {"name": "hall", "temp": 19}],
    "door": {"locked": True},
    "sensors": {3: "ok"},
}


def with_state(state: Any) -> TaskResult:
    return TaskResult(output="", context={"final_state": state})


def expecting(paths: Any) -> ExpectedResult:
    return ExpectedResult(expected="", context={"expected_state": paths})


@pytest.mark.parametrize(
    ("paths", "value", "passed", "failing"),
    [
        ({"lights.kitchen.state": "on"}, 1.0, True, []),
        ({"rooms.0.name": "kitchen", "rooms.1.temp": 19}, 1.0, True, []),
        ({"rooms.-1.name": "hall"}, 1.0, True, []),
        ({"lights.kitchen": {"state": "on", "brightness": 80}}, 1.0, True, []),
        ({"lights.kitchen.state": "on", "lights.hall.state": "on"}, 0.5, False, ["lights.hall.state"]),
        ({"door.locked": 1}, 0.0, False, ["door.locked"]),  # True is not 1
        ({"rooms.0.temp": 21.5, "rooms.1.temp": 19.0}, 1.0, True, []),  # 19 == 19.0
        ({"sensors.3": "ok"}, 1.0, True, []),  # an int dict key reached by its digits
        (
            {"a.b": 1, "lights.kitchen.state": "off", "rooms.0.name": "kitchen"},
            1 / 3,
            False,
            ["a.b", "lights.kitchen.state"],
        ),
    ],
)
def test_state_match__paths__value_is_fraction_matched(
    paths: dict[str, Any], value: float, passed: bool, failing: list[str]
) -> None:
    result = StateMatch()(with_state(STATE), expecting(paths))
    assert result.value == pytest.approx(value)
    assert result.passed is passed
    assert sorted(result.metadata["failures"]) == sorted(failing)
    assert result.metadata["paths_checked"] == len(paths)


@pytest.mark.parametrize(
    "path",
    ["lights.garage.state", "rooms.5.name", "rooms.name", "lights.kitchen.state.extra", "door.locked.x"],
)
def test_state_match__missing_path__reports_path_missing(path: str) -> None:
    result = StateMatch()(with_state(STATE), expecting({path: "on"}))
    assert not result.passed
    assert result.metadata["failures"][path] == {"expected": "on", "actual": None, "reason": PATH_MISSING}


def test_state_match__wrong_value__failure_has_expected_and_actual_without_reason() -> None:
    result = StateMatch()(with_state(STATE), expecting({"lights.hall.state": "on"}))
    assert result.metadata["failures"] == {"lights.hall.state": {"expected": "on", "actual": "off"}}
    assert result.reasoning == "1/1 path(s) failed: ['lights.hall.state']"


def test_state_match__per_example_expectation__overrides_factory_default() -> None:
    scorer = StateMatch(expected_state={"lights.hall.state": "on"})
    assert scorer(with_state(STATE), expecting({"lights.hall.state": "off"})).passed
    assert not scorer(with_state(STATE), ExpectedResult(expected="")).passed  # falls back to the default


def test_state_match__factory_default__used_without_expected() -> None:
    assert StateMatch(expected_state={"door.locked": True})(with_state(STATE), None).passed


@pytest.mark.parametrize(
    ("scorer", "expected", "reason_part"),
    [
        (StateMatch(), ExpectedResult(expected=""), "no expected_state to check"),
        (StateMatch(), None, "no expected_state to check"),
        (StateMatch(), expecting({}), "no paths to check"),
        (StateMatch(expected_state={"a": 1}), expecting({}), "no paths to check"),
        (StateMatch(), expecting(["lights.kitchen.state"]), "got list"),
    ],
)
def test_state_match__no_paths__fails_with_clear_reason(
    scorer: StateMatch, expected: ExpectedResult | None, reason_part: str
) -> None:
    result = scorer(with_state(STATE), expected)
    assert not result.passed and result.value == 0.0
    assert reason_part in result.metadata["reason"]
    assert result.reasoning == result.metadata["reason"]


@pytest.mark.parametrize(
    ("result", "reason_part"),
    [
        (TaskResult(output="x"), "no final state"),
        (with_state(None), "got NoneType"),
        (with_state(["on"]), "got list"),
        (with_state("lights on"), "got str"),
    ],
)
def test_state_match__missing_or_non_dict_state__fails_without_raising(
    result: TaskResult, reason_part: str
) -> None:
    score = StateMatch()(result, expecting({"lights.kitchen.state": "on"}))
    assert not score.passed and score.error is None
    assert reason_part in score.metadata["reason"]
    assert score.metadata["paths_checked"] == 1


def test_state_match__factory_given_non_mapping__raises_type_error() -> None:
    with pytest.raises(TypeError, match="mapping of dotted paths"):
        StateMatch(expected_state=["lights.kitchen.state"])  # type: ignore[arg-type]


def test_state_match__name__is_state_match() -> None:
    assert StateMatch().name == "StateMatch"


@pytest.mark.parametrize(
    ("path", "found", "value"),
    [
        ("rooms.1.name", True, "hall"),
        ("rooms.2", False, None),
        ("lights", True, STATE["lights"]),
        ("", False, None),
    ],
)
def test_resolve_path__dicts_and_list_indices(path: str, found: bool, value: Any) -> None:
    assert resolve_path(STATE, path) == (found, value)


@pytest.mark.parametrize(
    ("scorer", "result", "error", "got_type"),
    [
        (StateMatch(), with_state(STATE), "no expected_state provided", None),
        (
            StateMatch(expected_state={"x.y": 1}),
            TaskResult(output=""),
            "'final_state' missing or not a dict",
            "NoneType",
        ),
        (
            StateMatch(expected_state={"x.y": 1}),
            with_state("on"),
            "'final_state' missing or not a dict",
            "str",
        ),
    ],
)
def test_state_match__unscorable__seed_metadata_error_and_got_type(
    scorer: StateMatch, result: TaskResult, error: str, got_type: str | None
) -> None:
    score = scorer(result, None)
    assert (score.passed, score.value) == (False, 0.0)
    assert score.metadata["error"] == error
    assert score.metadata.get("got_type") == got_type


def test_state_match__all_paths_match__seed_reasoning_and_metadata() -> None:
    score = StateMatch(expected_state={"door.locked": True})(with_state(STATE), None)
    assert score.passed and score.reasoning == "All 1 paths matched"
    assert score.metadata == {"failures": {}, "paths_checked": 1}
