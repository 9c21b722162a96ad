"""A run's spending limit (``--budget-usd``): once the run has spent it, no new trial starts."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

BUDGET_ENV = "AGENT_EVALS_BUDGET_USD"
"""The environment variable ``run`` and ``ci`` read ``--budget-usd`` from (the action's ``budget-usd``)."""


def uncounted_cost(usage: Mapping[str, Any] | None) -> str | None:
    """Why the budget cannot count what an attempt spent, or None when it can (or it spent nothing).

    Not counted: a cost that is not a number of dollars of 0 or more (NaN, infinite, negative), and
    no cost at all beside live (not replayed) tokens, a model without a price. The one rule of the
    budget's charge and of the trials the record names."""
    if not usage:
        return None
    cost = usage.get("cost_usd")
    if cost is None:
        replayed = usage.get("replayed") or {}
        live = (usage.get("input_tokens") or 0) > (replayed.get("input_tokens") or 0) or (
            usage.get("output_tokens") or 0
        ) > (replayed.get("output_tokens") or 0)
        return "no price for its model" if live else None
    if isinstance(cost, bool) or not isinstance(cost, (int, float)):
        return f"cost {cost!r} is not a number"
    if math.isnan(cost):
        return "cost NaN"
    if math.isinf(cost):
        return "cost infinite"
    if cost < 0:
        return f"cost {cost:g}, negative"
    return None


def _replayed_cost(usage: Mapping[str, Any]) -> float:
    """The cost of an attempt's replayed share; 0 when it is not a number of dollars (so the whole
    attempt is charged: an over-count stops a budget early, never late)."""
    cost = (usage.get("replayed") or {}).get("cost_usd")
    if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) or cost < 0:
        return 0.0
    return float(cost)


class Budget:
    """The limit, what the finished attempts spent, how many trials it kept from starting, and the
    trials whose cost it could not count."""

    def __init__(self, limit_usd: float) -> None:
        if not (isinstance(limit_usd, (int, float)) and math.isfinite(limit_usd) and limit_usd > 0):
            raise ValueError(f"--budget-usd must be a positive number of US dollars, got {limit_usd!r}")
        self.limit_usd = float(limit_usd)
        self.spent_usd = 0.0
        self.skipped = 0
        self.unpriced = 0
        """Attempts with live tokens but no cost (a model without a price): not counted."""
        self.invalid = 0
        """Attempts whose cost was NaN, infinite or negative: not counted."""
        self.named = 0
        """Trials named as not counted (:meth:`note_case`), every one of them."""
        from agent_evals.record.model import (
            UNCOUNTED_LISTED,  # the record's limit (loaded only with a budget)
        )

        self.listed = UNCOUNTED_LISTED
        self.names: list[str] = []
        """The first ``listed`` of them, as ``case id trial N (why)``."""
        self._lock = threading.Lock()

    def charge(self, usage: Mapping[str, Any] | None) -> None:
        """Add what a finished attempt spent: its recorded cost less the share the response cache
        replayed (``usage["replayed"]``); one whose cost cannot be counted (:func:`uncounted_cost`)
        is counted as unpriced (no price) or invalid (NaN, infinite, negative) instead."""
        if not usage:
            return
        why = uncounted_cost(usage)
        cost = usage.get("cost_usd")
        with self._lock:
            if why is None:
                if cost is not None:
                    self.spent_usd += max(0.0, float(cost) - _replayed_cost(usage))
            elif cost is None:
                self.unpriced += 1
            else:
                self.invalid += 1

    def note_case(self, case_id: str, trials: Sequence[Sequence[Mapping[str, Any] | None]]) -> None:
        """Name the trials of a finished case whose cost could not be counted: ``trials`` holds each
        trial's usages (its retried attempts' and its own)."""
        for number, usages in enumerate(trials, start=1):
            why = next((w for w in map(uncounted_cost, usages) if w is not None), None)
            if why is None:
                continue
            with self._lock:
                self.named += 1
                if len(self.names) < self.listed:
                    self.names.append(f"{case_id} trial {number} ({why})")

    @property
    def uncounted_trials(self) -> int:
        """Trials whose cost could not be counted: those named, else (no trial named) the attempts."""
        return self.named or (self.unpriced + self.invalid)

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

    def uncounted_text(self) -> str:
        """The trials whose cost the spend leaves out, named (the first few), in a clause."""
        more = self.named - len(self.names)
        shown = "; ".join(self.names) + (f"; and {more} more" if more > 0 else "")
        return (
            f"{self.named} trial(s) whose cost could not be counted (no price, NaN, infinite or "
            f"negative) are left out of the spend: {shown}"
        )

    def describe(self) -> str:
        """What the budget came to, in one sentence (``run``'s closing message when it stopped trials)."""
        text = (
            f"Budget exhausted: ${self.spent_usd:.4f} spent of the ${self.limit_usd:g} budget (every "
            f"attempt charged, retries included; replayed cache answers not); {self.skipped} trial(s) "
            "not started"
        )
        if self.named:
            return f"{text}; {self.uncounted_text()}"
        if self.unpriced:
            text += f"; {self.unpriced} trial(s) used models without a price and were not counted"
        if self.invalid:
            text += f"; {self.invalid} trial(s) reported a cost that is NaN, infinite or negative and were not counted"
        return text

    def closing(self) -> str | None:
        """``run``'s closing line for a budget that was not spent but could not count every trial
        (None when it counted them all)."""
        if not self.uncounted_trials:
            return None
        what = (
            self.uncounted_text()
            if self.named
            else f"{self.uncounted_trials} trial(s) whose cost could not be counted (no price, NaN, infinite or negative) are left out of the spend"
        )
        return (
            f"warning: --budget-usd: ${self.spent_usd:.4f} counted of the ${self.limit_usd:g} budget; {what}"
        )


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


def note_written_case(case: Mapping[str, Any]) -> None:
    """Tell the run's budget, if any, which trials of a case just written (its record data) it could
    not count the cost of."""
    budget = active_budget()
    if budget is None:
        return
    trials = [
        [*(a.get("usage") for a in t.get("attempts") or ()), t.get("usage")] for t in case.get("trials", ())
    ]
    budget.note_case(case["id"], trials)
