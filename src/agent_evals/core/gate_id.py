"""The one rule for gate ids: they go into the comment marker (an HTML comment) and artifact names."""

from __future__ import annotations

import re

from agent_evals.errors import UsageError

GATE_ID_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9._]|-(?!-)){0,63}"
"""1-64 letters, digits, ``.``, ``_`` or single ``-``, starting with a letter or digit (``--`` would
end an HTML comment; ``/`` is not allowed in artifact names)."""
_GATE_ID = re.compile(GATE_ID_PATTERN)


def check_gate_id(gate_id: str) -> str:
    """``gate_id`` when it follows the rule, else a UsageError that states it."""
    if not _GATE_ID.fullmatch(gate_id):
        raise UsageError(
            f"gate id {gate_id!r} is not valid: use 1-64 letters, digits, '.', '_' or single '-', starting "
            "with a letter or digit (it names the comment marker and the artifacts; set --gate-id or the "
            "gate-id input)"
        )
    return gate_id


def gate_marker(gate_id: str) -> str:
    """The hidden HTML comment, first line of a gate's comment, that identifies it."""
    return f"<!-- agent-evals:gate:{check_gate_id(gate_id)} -->"
