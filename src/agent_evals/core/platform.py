"""The platform protocol: where a finished run's results are recorded (local folder, hosted service)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from agent_evals.core.types import EvalResult


class RecordedRun(BaseModel):
    """Where a platform put a run."""

    platform: str
    """The platform's short name, e.g. ``"local"``."""
    experiment_id: str
    """The platform's id for this run."""
    experiment_url: str | None = None
    """A link or path a person can open to see the run."""


@runtime_checkable
class Platform(Protocol):
    """Anything with ``async record(result) -> RecordedRun``; the runner calls it once, after the run."""

    async def record(self, result: EvalResult) -> RecordedRun:
        """Store ``result`` and say where it went."""
        ...
