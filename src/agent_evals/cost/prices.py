"""The price table: US dollars per million input and output tokens, per model; what a usage costs.

Built-in prices cover a few common hosted models as their providers list them (checked 2025); a
repository overrides or extends them with a ``prices:`` key in ``agent-evals.yaml``. A model's name
matches a table key exactly, or starts with the key followed by ``-``, ``:``, ``@`` or ``.``
(``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``); the longest key wins. A provider prefix
(``openai/gpt-4o``) is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evals.errors import PolicyError
from agent_evals.files.repo_config import load_config_yaml, repo_yaml


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float


BUILTIN: dict[str, Price] = {
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "o3-mini": Price(1.10, 4.40),
    "o4-mini": Price(1.10, 4.40),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-3-5-sonnet": Price(3.00, 15.00),
    "claude-3-7-sonnet": Price(3.00, 15.00),
    "claude-sonnet-4": Price(3.00, 15.00),
    "claude-opus-4": Price(15.00, 75.00),
}
"""The built-in table (docs/cost.md lists it); ``prices:`` in agent-evals.yaml overrides entries."""


class PriceTable:
    """Model name -> price, with the matching rule of this module's docstring."""

    def __init__(
        self, prices: Mapping[str, Price], source: str = "built-in", *, recorded: bool = True
    ) -> None:
        self.prices = dict(prices)
        self.source = source
        self.recorded = recorded
        """Whether the gate takes a candidate trial's recorded cost for a model this table cannot price.
        False for the base side's table on a pull request: the pull request's run worked that cost out
        with its own ``prices:``."""
        self._found: dict[str, Price | None] = {}

    def price_of(self, model: str) -> Price | None:
        """The price of ``model``, None when the table has none."""
        try:
            return self._found[model]
        except KeyError:
            found = self._found[model] = self._lookup(model)
            return found

    def _lookup(self, model: str) -> Price | None:
        name = model.split("/", 1)[1] if "/" in model else model
        exact = self.prices.get(name)
        if exact is not None:
            return exact
        best = None
        for key in self.prices:
            if (
                name.startswith(key)
                and len(name) > len(key)
                and name[len(key)] in "-:@."
                and (best is None or len(key) > len(best))
            ):
                best = key
        return self.prices[best] if best is not None else None

    def cost(self, models: Mapping[str, Any]) -> float | None:
        """The cost of a per-model token breakdown; None when a model with tokens has no price."""
        total = 0.0
        for model, tally in models.items():
            tokens_in = int(tally.get("input_tokens") or 0)
            tokens_out = int(tally.get("output_tokens") or 0)
            if not tokens_in and not tokens_out:
                continue
            price = self.price_of(model)
            if price is None:
                return None
            total += (tokens_in * price.input + tokens_out * price.output) / 1_000_000
        return total

    def priced(self, usage: Mapping[str, Any]) -> dict[str, Any]:
        """``usage`` with ``cost_usd`` from its ``models`` when it has a breakdown and no cost of its own."""
        models = usage.get("models")
        if usage.get("cost_usd") is not None or not isinstance(models, Mapping):
            return dict(usage)
        cost = self.cost(models)
        return {**usage, "cost_usd": cost} if cost is not None else dict(usage)

    def unpriced(self, models: Mapping[str, Any]) -> list[str]:
        """Models of a breakdown that have tokens but no price."""
        return sorted(
            m
            for m, t in models.items()
            if (t.get("input_tokens") or t.get("output_tokens")) and self.price_of(m) is None
        )


def parse_prices(data: Any, *, source: str) -> dict[str, Price]:
    """Validate a ``prices:`` mapping (model -> ``{input: X, output: Y}`` dollars per million tokens)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise PolicyError(
            f"{source}: 'prices' must map model names to {{input, output}}, found {type(data).__name__}"
        )
    out: dict[str, Price] = {}
    for model, entry in data.items():
        where = f"{source}: prices.{model}"
        if not isinstance(entry, Mapping) or set(entry) - {"input", "output"} or not entry:
            raise PolicyError(
                f"{where} must be a mapping with 'input' and 'output' (US dollars per million tokens), "
                f"found {entry!r}"
            )
        values = []
        for side in ("input", "output"):
            value = entry.get(side, 0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise PolicyError(
                    f"{where}.{side} must be a number >= 0 (dollars per million tokens), found {value!r}"
                )
            values.append(float(value))
        out[str(model)] = Price(*values)
    return out


def load_table(directory: Path | None = None, *, recorded: bool = True) -> PriceTable:
    """The built-in table overridden by ``prices:`` of the repo's ``agent-evals.yaml`` in ``directory``
    (default: the working directory); ``recorded`` as :attr:`PriceTable.recorded`."""
    path = repo_yaml(directory or Path.cwd())
    if path is not None:
        data, _ = load_config_yaml(path, what="prices")
        if isinstance(data, Mapping) and data.get("prices") is not None:
            prices = {**BUILTIN, **parse_prices(data["prices"], source=str(path))}
            return PriceTable(prices, source=str(path), recorded=recorded)
    return PriceTable(BUILTIN, recorded=recorded)


_active: list[PriceTable] = []


def active_table() -> PriceTable:
    """The table this process prices with: loaded from the working directory on first use."""
    if not _active:
        _active.append(load_table())
    return _active[0]


def use_table(table: PriceTable | None) -> None:
    """Price with ``table`` from now on (None: load from the working directory again on next use)."""
    _active.clear()
    if table is not None:
        _active.append(table)
