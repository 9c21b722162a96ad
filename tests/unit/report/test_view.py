"""What each level of detail keeps, and the order cases are listed in."""

from __future__ import annotations

from typing import Any

from agent_evals.report.view import LEVELS, build_view, collect_cases


def _comparison(build: Any) -> Any:
    cases = [build.case(f"lights/r{i}", "regressed") for i in range(30)]
    cases.append(build.case("doors/critical", "regressed", critical=True, critical_flip=True))
    cases.append(build.case("media/partial", "flaky", base=build.side(3, 3), cand=build.side(1, 3)))
    cases += [build.case(f"scenes/i{i}", "improved") for i in range(30)]
    groups = [build.group("lights", 0.9, 0.6, "regressed"), build.group("doors", 1.0, 1.0)]
    s = build.suite(cases=cases, verdict="failed", outcome="fail", groups=groups)
    return build.comparison([s], verdict="failed", outcome="fail")


def test_collect_cases__critical_flips_first_then_partial_drops_are_listed_as_regressions(build: Any) -> None:
    listed = collect_cases(_comparison(build))
    ids = [c.case_id for c in listed["regressed"]]
    assert ids[0] == "doors/critical"
    assert "media/partial" in ids
    assert len(listed["improved"]) == 30
    assert listed["flaky"] == []


def test_build_view__full_detail__keeps_everything(build: Any) -> None:
    c = _comparison(build)
    view = build_view(c, LEVELS[0], collect_cases(c))
    assert view.trimmed == []
    assert len(view.regressed.shown) == 32 and len(view.suites[0].groups) == 2


def test_build_view__later_levels__drop_passing_rows_then_cases_and_say_so(build: Any) -> None:
    c = _comparison(build)
    cases = collect_cases(c)
    level1 = build_view(c, LEVELS[1], cases)
    assert [g.key for g in level1.suites[0].groups] == ["lights"]
    assert "1 group rows" in level1.trimmed
    level4 = build_view(c, LEVELS[4], cases)
    assert len(level4.regressed.shown) == 10 and level4.regressed.hidden == 22
    assert level4.improved.shown == [] and level4.improved.total == 30
    assert "22 regressed cases" in level4.trimmed and "30 improved cases" in level4.trimmed
    last = build_view(c, LEVELS[-1], cases)
    assert not last.detail.sections and last.suites[0].groups == []


def test_levels__each_step_shows_no_more_than_the_one_before() -> None:
    for index in range(1, len(LEVELS)):
        before, after = LEVELS[index - 1], LEVELS[index]
        for attr in ("case_limit", "other_limit", "group_limit", "suite_limit"):
            a, b = getattr(before, attr), getattr(after, attr)
            if a is not None:
                assert b is not None and b <= a, (attr, before.level, after.level)
        assert after.text_limit <= before.text_limit
