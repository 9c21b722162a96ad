"""A run's spending limit (``--budget-usd``): once the run has spent it, no new trial starts."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

BUDGET_ENV = "AGENT_EVALS_BUDGET_USD"
"""The environment variable ``run`` and ``ci`` read ``--budget-usd`` from (the action's ``budget-usd``)."""


class Budget:
    """The limit, what the finished attempts spent, and how many trials it kept from starting."""

    def __init__(self, limit_usd: float) -> None:
        if not (isinstance(limit_usd, (int, float)) and math.isfinite(limit_usd) and limit_usd > 0):
            raise ValueError(f"--budget-usd must be a positive number of US dollars, got {limit_usd!r}")
        self.limit_usd = float(limit_usd)
        self.spent_usd = 0.0
        self.skipped = 0
        self.unpriced = 0
        self._lock = threading.Lock()

    def charge(self, usage: Mapping[str, Any] | None) -> None:
        """Add what a finished attempt spent: its recorded cost less the share the response cache
        replayed (``usage["replayed"]``); an attempt with live tokens but no cost is counted as unpriced."""
        if not usage:
            return
        replayed = usage.get("replayed") or {}
        cost = usage.get("cost_usd")
        with self._lock:
            if cost is not None:
                self.spent_usd += max(0.0, float(cost) - float(replayed.get("cost_usd") or 0.0))
            elif (usage.get("input_tokens") or usage.get("output_tokens")) and not (
                (replayed.get("input_tokens") or 0) >= (usage.get("input_tokens") or 0)
                and (replayed.get("output_tokens") or 0) >= (usage.get("output_tokens") or 0)
            ):
                self.unpriced += 1

    def allows(self) -> bool:
        """Whether a new trial may start; a refusal is counted in ``skipped``."""
        with self._lock:
            if self.spent_usd < self.limit_usd:
                return True
            self.skipped += 1
            return False

    @property
    def exhausted(self) -> bool:
        """True when the budget kept at least one trial from starting."""
        return self.skipped > 0

    def describe(self) -> str:
        """What the budget came to, in one sentence (``run``'s closing message when it stopped trials)."""
        text = (
            f"Budget exhausted: ${self.spent_usd:.4f} spent of the ${self.limit_usd:g} budget (every "
            f"attempt charged, retries included; replayed cache answers not); {self.skipped} trial(s) "
            "not started"
        )
        if self.unpriced:
            text += f"; {self.unpriced} trial(s) used models without a price and were not counted"
        return text


_active: list[Budget] = []


def active_budget() -> Budget | None:
    """The budget of the run in progress, if it has one."""
    return _active[0] if _active else None


def may_start() -> bool:
    """Whether the next trial may start (always, without a budget)."""
    budget = active_budget()
    return budget is None or budget.allows()


def charge(usage: Mapping[str, Any] | None) -> None:
    """Count a finished attempt's cost against the budget of the run in progress, if any."""
    budget = active_budget()
    if budget is not None:
        budget.charge(usage)


@contextmanager
def budgeted(limit_usd: float | None) -> Iterator[Budget | None]:
    """Run the block under a budget of ``limit_usd`` (None: no budget)."""
    if limit_usd is None:
        yield None
        return
    budget = Budget(limit_usd)
    _active.insert(0, budget)
    try:
        yield budget
    finally:
        _active.remove(budget)
