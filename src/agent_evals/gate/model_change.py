"""A suite's models in two runs: a change on both sides is a difference, a model on one side a note."""

from __future__ import annotations

from typing import Any

from agent_evals.record.models import recorded_models

SHOWN = 3
"""Names listed per side of a change (the names only that side has come first); the rest are counted."""

_LABELS = (("agent", "model"), ("judge", "judge model"))


def _listed(names: list[str], other: list[str]) -> str:
    """``names`` for a sentence: those ``other`` lacks first, so the difference shows when some are cut."""
    ordered = [n for n in names if n not in other] + [n for n in names if n in other]
    more = len(ordered) - SHOWN
    return ", ".join(ordered[:SHOWN]) + (f" (+{more} more)" if more > 0 else "")


def model_changes(base_field: Any, cand_field: Any, suite_id: str) -> tuple[list[str], list[str]]:
    """Compare a suite's recorded ``models`` (baseline, candidate): the changes, and the notes.

    A role (the agent's models, the judges') known on both sides with different names is a change,
    named with both sides (``model gpt-4o -> gpt-4o-mini``): the runs are not alike, and
    ``on_mismatch`` decides. A role known on one side only (a baseline written before records kept
    models, an agent that reported none, a judge added or removed) is a note for the report, which
    decides nothing: it says a change of model cannot be ruled out.
    """
    base, cand = recorded_models(base_field), recorded_models(cand_field)
    changes: list[str] = []
    notes: list[str] = []
    for role, label in _LABELS:
        before, now = base.get(role), cand.get(role)
        if before and now:
            if before != now:
                changes.append(f"{label} {_listed(before, now)} -> {_listed(now, before)}")
        elif before:
            notes.append(
                f"Suite {suite_id}: {label} {_listed(before, [])} in the baseline, none recorded now "
                f"(nothing in this run named its {label}): a change of {label} cannot be ruled out."
            )
        elif now:
            notes.append(
                f"Suite {suite_id}: {label} {_listed(now, [])} now, none recorded in the baseline "
                f"(written before records kept models, or nothing in it named its {label}): "
                "not compared."
            )
    return changes, notes
