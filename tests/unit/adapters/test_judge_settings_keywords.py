"""takes_judge_settings: the judges' nine keywords, defined once, shown and checked by name."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from agent_evals.adapters.scorers.judge_settings import JudgeSettings, takes_judge_settings

DEFAULTS: dict[str, Any] = {key: None for key in JudgeSettings.__annotations__} | {
    "model": "m",
    "timeout_s": 9.0,
}


class Judge:
    @takes_judge_settings(DEFAULTS)
    def __init__(self, *, extra: str = "", **settings: Any) -> None:
        self.extra = extra
        self.settings = settings


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, DEFAULTS),
        ({"model": "other"}, {**DEFAULTS, "model": "other"}),
        ({"extra": "x", "timeout_s": 1.0}, {**DEFAULTS, "timeout_s": 1.0}),
    ],
    ids=["nothing-given", "one-setting", "own-keyword-and-setting"],
)
def test_takes_judge_settings__keywords_given__every_setting_arrives(
    given: dict[str, Any], expected: dict[str, Any]
) -> None:
    judge = Judge(**given)
    assert judge.settings == expected
    assert judge.extra == given.get("extra", "")


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {"modle": "x"}), (("positional",), {})],
    ids=["unknown-keyword", "positional-setting"],
)
def test_takes_judge_settings__call_outside_the_signature__type_error_names_the_init(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    with pytest.raises(TypeError, match=r"Judge\.__init__\(\)"):
        Judge(*args, **kwargs)


def test_takes_judge_settings__signature__own_keywords_then_the_settings_by_name() -> None:
    names = list(inspect.signature(Judge).parameters)
    assert names == ["extra", *JudgeSettings.__annotations__]
    assert inspect.signature(Judge).parameters["model"].default == "m"
