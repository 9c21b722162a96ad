"""One failing score as one terminal line: notes, then what was expected and what came, never twice."""

from __future__ import annotations

import pytest

from agent_evals.report.evidence import evidence


def _same(text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("name", "notes", "expected", "actual", "line"),
    [
        # a state check words the comparison itself: the values are not repeated after it
        (
            "StateMatch",
            'lamp: expected "on", got "off"',
            '{"lamp": "on"}',
            '{"lamp": "off"}',
            'StateMatch: lamp: expected "on", got "off"',
        ),
        (
            "StateMatch",
            'lamp: expected "on", got "off"; door: expected "shut",\ngot "open"',
            "{}",
            "{}",
            'StateMatch: lamp: expected "on", got "off"; door: expected "shut",\ngot "open"',
        ),
        # notes that name only what was expected: what came is added
        (
            "output",
            "expected the output to equal 'billing'",
            "billing",
            "general",
            "output: expected the output to equal 'billing' (expected billing, got general)",
        ),
        # no notes, one side only, an empty value, the automatic key
        ("equals", None, "billing", "general", "equals: failed (expected billing, got general)"),
        ("equals", None, None, "general", "equals: failed (got general)"),
        ("equals", "", "", None, 'equals: failed (expected "")'),
        ("pass", "assert 1 == 2", None, None, "failed: assert 1 == 2"),
        # words that merely contain the markers do not count as the comparison
        (
            "judge",
            "unexpected tone; forgot the greeting",
            "polite",
            "rude",
            "judge: unexpected tone; forgot the greeting (expected polite, got rude)",
        ),
    ],
)
def test_evidence__notes_and_values__one_line_without_repeats(
    name: str, notes: str | None, expected: str | None, actual: str | None, line: str
) -> None:
    assert evidence(name, notes, expected, actual, _same) == line
