"""Which flow `agent-evals ci` picks for each Actions event, and how the gate id is derived."""

from __future__ import annotations

import pytest

from agent_evals.ci.plan import check_gate_id, default_gate_id, make_plan
from agent_evals.errors import UsageError
from agent_evals.github.settings import ActionsSettings, EventInfo


def _settings(event: str | None, ref: str = "refs/heads/main", in_actions: bool = True) -> ActionsSettings:
    return ActionsSettings(
        in_actions=in_actions,
        event_name=event,
        ref=ref,
        workflow_ref="octo/demo/.github/workflows/Gate Check.yml@refs/heads/main",
        event=EventInfo(base_ref="release" if event == "pull_request" else None),
    )


@pytest.mark.parametrize(
    ("event", "ref", "update", "expected"),
    [
        ("pull_request", "refs/pull/1/merge", False, ("pull_request", True, True, False, "release")),
        ("pull_request_target", "refs/heads/main", False, ("pull_request", True, True, False, "main")),
        (
            "merge_group",
            "refs/heads/gh-readonly-queue/main/x",
            False,
            ("merge_group", True, False, False, "main"),
        ),
        ("push", "refs/heads/main", False, ("baseline", False, False, True, None)),
        ("push", "refs/heads/feature", False, ("branch", True, False, False, "main")),
        ("push", "refs/heads/feature", True, ("baseline", False, False, True, None)),
        ("workflow_dispatch", "refs/heads/main", False, ("baseline", False, False, True, None)),
        ("workflow_dispatch", "refs/heads/feature", False, ("run", False, False, False, None)),
        ("workflow_dispatch", "refs/heads/feature", True, ("baseline", False, False, True, None)),
        ("schedule", "refs/heads/main", False, ("run", False, False, False, None)),
    ],
)
def test_make_plan__event__flow(event: str, ref: str, update: bool, expected: tuple[object, ...]) -> None:
    plan = make_plan(_settings(event, ref), default_branch="main", update_baseline=update)
    assert (plan.kind, plan.compare, plan.comment, plan.upload_baseline, plan.base_branch) == expected


@pytest.mark.parametrize(("baseline_file", "compare"), [(False, False), (True, True)])
def test_make_plan__outside_actions__local_compares_only_with_a_file(
    baseline_file: bool, compare: bool
) -> None:
    plan = make_plan(_settings(None, in_actions=False), default_branch=None, baseline_file=baseline_file)
    assert (plan.kind, plan.compare, plan.comment, plan.upload_baseline) == ("local", compare, False, False)


def test_default_gate_id__workflow_job_paths__stable_slug_and_order_free() -> None:
    s = _settings("pull_request")
    a = default_gate_id(s, ["b.yaml", "a.yaml/"], {"GITHUB_JOB": "gate"})
    assert a == default_gate_id(s, ["a.yaml", "b.yaml"], {"GITHUB_JOB": "gate"})
    assert a.startswith("gate-check-") and len(a) == len("gate-check-") + 8
    assert a != default_gate_id(s, ["a.yaml", "b.yaml"], {"GITHUB_JOB": "other"})


@pytest.mark.parametrize("bad", ["", "has space", "x" * 65, "a-->b", "ünï"])
def test_check_gate_id__unsafe__usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="--gate-id"):
        check_gate_id(bad)


@pytest.mark.parametrize("workflow", ["my--gate.yml", "-x.yml", "..hidden.yml", "x" * 200 + ".yml"])
def test_default_gate_id__any_workflow_name__passes_the_one_gate_id_rule(workflow: str) -> None:
    from agent_evals.core.gate_id import check_gate_id

    settings = ActionsSettings(
        in_actions=True, workflow_ref=f"octo/demo/.github/workflows/{workflow}@refs/heads/main"
    )
    assert check_gate_id(default_gate_id(settings, ["evals"], {"GITHUB_JOB": "gate"}))


@pytest.mark.parametrize("gate_id", ["a--b", "-a", "a/b", "", "x" * 65])
def test_gate_id__marker_and_renderer__refuse_the_same_ids(gate_id: str) -> None:
    from agent_evals.github.comments import marker
    from agent_evals.report.markdown import gate_marker

    for build in (marker, gate_marker):
        with pytest.raises(UsageError, match="gate id"):
            build(gate_id)
