"""Gate policy: the knobs, their sources (defaults < repo config < suite block < CLI) and glob overrides."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, computed_field

from agent_evals.errors import PolicyError, did_you_mean
from agent_evals.files.repo_config import (
    REPO_CONFIG_NAMES,
    Locator,
    find_repo_config,
    load_config_yaml,
    load_toml,
)
from agent_evals.gate.strictness import stricter_values

Action = Literal["pass", "warn", "fail"]
"""What a situation does to the gate: nothing, a warning, or a failure."""

MismatchAction = Literal["warn", "fail"]
"""What a fingerprint mismatch does."""

TestChoice = Literal["stratified", "per_case"]
"""Which paired test decides: the case-stratified exact test on the trials (default), or the test on the
per-case pass fractions (for agents whose trials of a case share state: cached responses, fixed seeds)."""

TEST_ASSUMPTIONS: dict[str, str] = {
    "stratified": (
        "test stratified: trials of a case are taken as independent draws (set test: per_case when an "
        "agent's trials share state, such as cached responses or fixed seeds)"
    ),
    "per_case": "test per_case: each case's pass fraction counts as one unit (trials may share state)",
}
"""What each paired test assumes, as every report's policy block states it."""

ChangeAction = Literal["warn", "fail"]
"""What a change of what is measured does (cases removed or redefined, fewer trials): warn or fail."""

CriticalAction = Literal["fail", "warn", "ignore"]
"""What a critical case that flips from passing every trial to failing every trial does."""

KNOB_NAMES = (
    "min_pass_rate",
    "max_drop",
    "alpha",
    "max_error_rate",
    "on_missing_baseline",
    "on_inconclusive",
    "critical",
    "critical_cases",
    "mid_p",
    "test",
    "on_mismatch",
    "max_tokens_increase",
    "max_cost_increase",
    "max_latency_increase",
    "on_removed_cases",
    "on_redefined_cases",
    "on_fewer_trials",
)
"""Every knob a policy block may set (besides ``overrides``)."""

USAGE_KNOBS = ("max_tokens_increase", "max_cost_increase", "max_latency_increase")
"""The usage knobs: a relative increase (0.2 = 20%), or ``off`` (None) for no check."""


def _no_bool(value: Any) -> Any:
    """Refuse a boolean where a number belongs: pydantic would read ``true`` as 1.0, and a
    ``max_drop`` or ``max_error_rate`` of 1 is a gate that can never fail."""
    if isinstance(value, bool):
        raise ValueError("Input should be a number (a fraction of 1, such as 0.05), not a boolean")
    return value


Number = Annotated[float, BeforeValidator(_no_bool)]
"""A numeric knob's value: a number, never a boolean."""


def _off_is_none(value: Any) -> Any:
    """``off`` / ``false`` / ``null`` turn a usage check off; ``true`` is no limit (refused)."""
    if (
        value is None
        or value is False
        or (isinstance(value, str) and value.strip().lower() in ("off", "none"))
    ):
        return None
    return _no_bool(value)


UsageLimit = Annotated[Annotated[float, Field(ge=0.0, le=1.0)] | None, BeforeValidator(_off_is_none)]
"""A usage knob's value: the largest tolerated relative increase (0..1, 1 = doubled), or None (off)."""


class Knobs(BaseModel):
    """The resolved gate settings that apply to one suite or group."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_pass_rate: Number | None = Field(default=None, ge=0.0, le=1.0)
    """Absolute floor for the candidate's pass rate (None: no floor)."""
    max_drop: Number = Field(default=0.05, ge=0.0, le=1.0)
    """Largest tolerated drop versus the baseline (0.05 = 5 points)."""
    alpha: Number = Field(default=0.05, gt=0.0, lt=0.5)
    """One-sided significance level for calling a drop a regression (family-wise, Holm)."""
    max_error_rate: Number = Field(default=0.05, ge=0.0, le=1.0)
    """Largest tolerated share of errored trials in the candidate."""
    on_missing_baseline: Action = "warn"
    """What a suite without a baseline does: pass, warn (floors still apply) or fail."""
    on_inconclusive: Action = "warn"
    """What a drop beyond ``max_drop`` that is not significant does."""
    critical: CriticalAction = "fail"
    """What a critical case going from all-pass to all-fail does."""
    critical_cases: tuple[str, ...] = ()
    """Globs of case ids treated as critical in addition to those the record marks."""
    mid_p: bool = False
    """Use the mid-p exact McNemar test for one trial per case (less conservative)."""
    on_mismatch: MismatchAction = "warn"
    """What runs that are not alike do (suite file, agent, trials, configuration, tool version differ):
    ``warn`` lets them pass with a warning, ``fail`` fails the gate."""
    test: TestChoice = "stratified"
    """``stratified``: the exact test on the trials, stratified by case (assumes a case's trials are
    independent draws); ``per_case``: the test on per-case pass fractions (trials may share state)."""
    max_tokens_increase: UsageLimit = 0.2
    """Largest tolerated relative increase of tokens per trial over the paired cases (None: off)."""
    max_cost_increase: UsageLimit = 0.2
    """Largest tolerated relative increase of cost per trial, both sides priced with one table (None: off)."""
    max_latency_increase: UsageLimit = None
    """Largest tolerated relative increase of trial latency (off by default: latency shifts with the runner)."""
    on_removed_cases: ChangeAction = "warn"
    """What cases the baseline ran and this run does not do: ``warn`` names them, ``fail`` fails the gate."""
    on_redefined_cases: ChangeAction = "warn"
    """What cases whose definition changed (input, expected values, checks, scorers) do."""
    on_fewer_trials: ChangeAction = "fail"
    """What fewer trials per case than the baseline's do (takes precedence over ``on_mismatch`` for it)."""


class _BlockBase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min_pass_rate: Number | None = Field(default=None, ge=0.0, le=1.0)
    """Absolute floor for the candidate's pass rate."""
    max_drop: Number | None = Field(default=None, ge=0.0, le=1.0)
    """Largest tolerated drop versus the baseline."""
    alpha: Number | None = Field(default=None, gt=0.0, lt=0.5)
    """One-sided significance level."""
    max_error_rate: Number | None = Field(default=None, ge=0.0, le=1.0)
    """Largest tolerated share of errored trials."""
    on_missing_baseline: Action | None = None
    """pass | warn | fail when there is no baseline."""
    on_inconclusive: Action | None = None
    """pass | warn | fail for a large drop that is not significant."""
    critical: CriticalAction | None = None
    """fail | warn | ignore for a critical case that flips."""
    critical_cases: tuple[str, ...] | None = None
    """Globs of case ids to treat as critical."""
    mid_p: bool | None = None
    """Use the mid-p McNemar test."""
    on_mismatch: MismatchAction | None = None
    """warn | fail when the runs' fingerprints differ."""
    test: TestChoice | None = None
    """stratified | per_case: which paired test decides."""
    max_tokens_increase: UsageLimit = None
    """Relative increase of tokens per trial that fails the gate, or off."""
    max_cost_increase: UsageLimit = None
    """Relative increase of cost per trial that fails the gate, or off."""
    max_latency_increase: UsageLimit = None
    """Relative increase of trial latency that fails the gate, or off."""
    on_removed_cases: ChangeAction | None = None
    """warn | fail when cases of the baseline are gone."""
    on_redefined_cases: ChangeAction | None = None
    """warn | fail when cases changed their definition."""
    on_fewer_trials: ChangeAction | None = None
    """fail | warn when cases ran fewer trials than in the baseline."""

    def settings(self) -> dict[str, Any]:
        """The knobs this block sets explicitly."""
        return {k: getattr(self, k) for k in KNOB_NAMES if k in self.model_fields_set}


class OverrideBlock(_BlockBase):
    """The knobs an override sets for the suites or groups its glob matches."""


class PolicyBlock(_BlockBase):
    """A ``gate:`` block as written in a benchmark YAML, a repo config file or a policy file."""

    overrides: dict[str, OverrideBlock] = Field(default_factory=dict)
    """Per-suite or per-group settings keyed by glob (``home-v1`` or ``home-v1/doors``)."""


class Layer(BaseModel):
    """One policy source, in precedence order."""

    source: str
    """Where it came from: ``agent-evals.yaml``, ``suite home-v1``, ``command line`` ..."""
    suite: str | None = None
    """Set when the layer is a suite's own ``gate:`` block: it applies to that suite only."""
    block: PolicyBlock
    """The settings."""


class OverrideView(BaseModel):
    """An override as reports print it."""

    pattern: str
    """The glob it matches."""
    source: str
    """The policy source that declared it."""
    settings: dict[str, Any]
    """The knobs it sets."""


class Policy(BaseModel):
    """A resolved policy: every layer in precedence order, with the knobs that apply where."""

    layers: list[Layer] = Field(default_factory=list)
    """Sources, lowest precedence first (the built-in defaults are implicit)."""
    floor: Policy | None = None
    """The base side's policy (``ci`` on a pull request, the publisher): each knob is the stricter of it
    and this policy's own (``gate.floor``)."""
    floor_by_suite: dict[str, Policy] = Field(default_factory=dict)
    """The base side's policy of one suite as its baseline record recorded it; before ``floor``."""

    @property
    def effective(self) -> Knobs:
        """The knobs that apply to a suite no override or suite block targets."""
        return self.knobs_for(None)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def sources(self) -> list[str]:
        """Names of the sources that contributed, lowest precedence first."""
        floored = ["base side (floor)"] if self.floored else []
        return ["defaults", *[layer.source for layer in self.layers], *floored]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def overrides(self) -> list[OverrideView]:
        """Every glob override, with its source."""
        views: list[OverrideView] = []
        for layer in self.layers:
            for pattern, block in layer.block.overrides.items():
                shown = f"{layer.suite}/{pattern}" if layer.suite and "/" not in pattern else pattern
                views.append(OverrideView(pattern=shown, source=layer.source, settings=block.settings()))
        return views

    def base_for(self, suite_id: str | None) -> Policy | None:
        """The base side's policy that floors this suite's knobs (None: no floor)."""
        return self.floor_by_suite.get(suite_id, self.floor) if suite_id is not None else self.floor

    @property
    def floored(self) -> bool:
        """Whether a base side floors this policy (``ci`` on a pull request, the publisher)."""
        return self.floor is not None or bool(self.floor_by_suite)

    def own(self) -> Policy:
        """This policy without its floor: what its own sources say."""
        return Policy(layers=self.layers)

    def knobs_for(self, suite_id: str | None, group: str | None = None) -> Knobs:
        """The knobs for a suite, or for one group of it when ``group`` is given (floored by the base side)."""
        own = self._own_knobs(suite_id, group)
        base = self.base_for(suite_id)
        if base is None:
            return own
        floor = base.knobs_for(suite_id, group)
        return Knobs.model_validate(stricter_values(floor.model_dump(), own.model_dump()))

    def _own_knobs(self, suite_id: str | None, group: str | None) -> Knobs:
        merged: dict[str, Any] = {}
        for layer in self.layers:
            if layer.suite is not None and layer.suite != suite_id:
                continue
            merged.update(layer.block.settings())
            if suite_id is None:
                continue
            for pattern, block in layer.block.overrides.items():
                if matches_suite(pattern, suite_id):
                    merged.update(block.settings())
            if group is not None:
                for pattern, block in layer.block.overrides.items():
                    if matches_group(pattern, suite_id, group, scoped=layer.suite is not None):
                        merged.update(block.settings())
        return Knobs.model_validate(merged)

    def group_is_gated(self, suite_id: str, group: str) -> bool:
        """Whether an override targets this group, which makes it able to fail the gate on its own
        (on this policy's side or its floor's)."""
        base = self.base_for(suite_id)
        if base is not None and base.group_is_gated(suite_id, group):
            return True
        for layer in self.layers:
            if layer.suite is not None and layer.suite != suite_id:
                continue
            for pattern in layer.block.overrides:
                if matches_group(pattern, suite_id, group, scoped=layer.suite is not None):
                    return True
        return False


class SuiteKnobs:
    """One suite's knobs, resolved from the policy once: the suite's own, and each group's (with
    whether an override gates it) on first ask."""

    def __init__(self, policy: Policy, suite_id: str) -> None:
        self.policy = policy
        self.suite_id = suite_id
        self.knobs = policy.knobs_for(suite_id)
        self._groups: dict[str, Knobs] = {}
        self._gated: dict[str, bool] = {}

    def group(self, key: str) -> Knobs:
        """The knobs of the suite's group ``key``."""
        knobs = self._groups.get(key)
        if knobs is None:
            knobs = self._groups[key] = self.policy.knobs_for(self.suite_id, key)
        return knobs

    def gated(self, key: str) -> bool:
        """Whether an override targets the group ``key`` (it can then fail the gate on its own)."""
        gated = self._gated.get(key)
        if gated is None:
            gated = self._gated[key] = self.policy.group_is_gated(self.suite_id, key)
        return gated


def matches_suite(pattern: str, suite_id: str) -> bool:
    """Whether an override glob targets the suite ``suite_id`` as a whole."""
    return fnmatch.fnmatchcase(suite_id, pattern)


def matches_group(pattern: str, suite_id: str, group: str, *, scoped: bool) -> bool:
    """Whether an override glob targets one group of a suite (``scoped``: written in that suite's own block)."""
    if matches_suite(pattern, suite_id):
        return False  # a suite-level pattern (``home-*``) does not target each group on its own
    if fnmatch.fnmatchcase(f"{suite_id}/{group}", pattern):
        return True
    # In a suite's own block an override may name its groups without the suite id.
    return scoped and fnmatch.fnmatchcase(group, pattern)


FRACTION_KEYS = ("min_pass_rate", "max_drop", "max_error_rate", *USAGE_KNOBS)
"""Knobs that are fractions of 1 (0.05 is 5 points), where a percentage is a likely slip."""


def _hint(first: Mapping[str, Any], loc: tuple[Any, ...]) -> str:
    """A did-you-mean for an unknown key, or the fraction a percentage-like rate probably meant."""
    known = [*KNOB_NAMES, "overrides"] if "overrides" not in loc[:-1] else list(KNOB_NAMES)
    if first["type"] == "extra_forbidden":
        return f"{did_you_mean(str(loc[-1]), known)} (known keys: {', '.join(known)})"
    found = first.get("input")
    if isinstance(found, str):  # a command-line value, parsed by the knob itself
        try:
            found = float(found)
        except ValueError:
            return ""
    if (
        loc
        and loc[-1] in FRACTION_KEYS
        and isinstance(found, (int, float))
        and not isinstance(found, bool)
        and 1 < found <= 100
    ):
        return f"; rates are fractions of 1: did you mean {found / 100:g} ({found:g} points)?"
    return ""


def parse_block(
    data: Any, *, source: str, prefix: str = "gate", locate: Locator | None = None
) -> PolicyBlock:
    """Validate one ``gate:`` block; any problem is a PolicyError naming the source and key path.

    ``locate`` (given for YAML files) turns a key path into ``file:line:col`` for the message.
    """
    if data is None:
        return PolicyBlock()
    if not isinstance(data, Mapping):
        raise PolicyError(
            f"{source}: '{prefix}' must be a mapping of policy keys, found {type(data).__name__}"
        )
    try:
        block = PolicyBlock.model_validate(dict(data))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        if prefix == "flag":  # command-line flags are named as typed
            key = "--" + str(loc[0]).replace("_", "-")
        else:
            key = ".".join([prefix, *(str(p) for p in loc)])
        where = locate(loc) if locate is not None else source
        found = first.get("input")
        shown = "" if first["type"] == "extra_forbidden" else f", found {found!r}"
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        message = message.removeprefix("Value error, ")  # a validator's own message reads as pydantic's
        raise PolicyError(
            f"{where}: invalid policy value for '{key}': {message}{shown}{_hint(first, loc)}"
        ) from exc
    _refuse_nulls(block, source, prefix, locate)
    return block


def _refuse_nulls(block: PolicyBlock, source: str, prefix: str, locate: Locator | None) -> None:
    """A ``null`` only for knobs whose default is None (``min_pass_rate``); elsewhere it is an error."""
    blocks: list[tuple[tuple[str, ...], Any]] = [((), block)]
    blocks += [(("overrides", pattern), b) for pattern, b in block.overrides.items()]
    for path, each in blocks:
        for key, value in each.settings().items():
            if value is None and Knobs.model_fields[key].default is not None and key not in USAGE_KNOBS:
                loc = (*path, key)
                where = locate(loc) if locate is not None else source
                raise PolicyError(
                    f"{where}: invalid policy value for '{'.'.join([prefix, *loc])}': null is not allowed; "
                    "give a value or leave the key out"
                )


def read_config_block(path: Path) -> PolicyBlock:
    """Read the gate block of a repo config or policy file.

    ``pyproject.toml`` (or any ``.toml``): ``[tool.agent-evals.gate]``. ``agent-evals.yaml``: its
    top-level ``gate:`` key. Any other YAML file (``--policy FILE``): its ``gate:`` key when present,
    else the whole document is the block.
    """
    if path.suffix == ".toml":
        tool = load_toml(path).get("tool", {})
        ours = tool.get("agent-evals") if isinstance(tool, Mapping) else None
        if isinstance(ours, Mapping) and "gate" in ours:
            return parse_block(ours["gate"], source=str(path), prefix="tool.agent-evals.gate")
        raise PolicyError(
            f"{path}: {_toml_miss(tool, ours)}; the gate policy belongs in [tool.agent-evals.gate]"
        )
    data, locate = load_config_yaml(path, what="policy")
    if data is None:
        return PolicyBlock()
    if not isinstance(data, Mapping):
        raise PolicyError(f"{path}: expected a mapping at the top level, found {type(data).__name__}")
    if "gate" in data or path.name in REPO_CONFIG_NAMES:
        # knobs beside gate: (or a misspelt gate:) would be ignored, and the defaults silently apply
        stray = [k for k in data if k in (*KNOB_NAMES, "overrides")]
        stray += difflib.get_close_matches(
            "gate", [str(k) for k in data if k not in ("gate", "prices")], 1, 0.6
        )
        if stray:
            raise PolicyError(
                f"{locate((stray[0],))}: '{stray[0]}' is not read at the top level; the gate policy "
                "belongs under its top-level gate: key"
            )
        return parse_block(data.get("gate"), source=str(path), locate=lambda loc: locate(("gate", *loc)))
    return parse_block(data, source=str(path), prefix="policy", locate=locate)


def _toml_miss(tool: Any, ours: Any) -> str:
    """What a TOML policy file holds instead of a [tool.agent-evals.gate] table."""
    misspelt = (
        [k for k in tool if k.replace("_", "-").lower() == "agent-evals"] if isinstance(tool, Mapping) else []
    )
    if misspelt and misspelt[0] != "agent-evals":
        return f"[tool.{misspelt[0]}] is not read"
    knobs = [k for k in ours if k in (*KNOB_NAMES, "overrides")] if isinstance(ours, Mapping) else []
    return (
        f"[tool.agent-evals] sets {', '.join(knobs)}" if knobs else "it has no [tool.agent-evals.gate] table"
    )


def discover_repo_config(directory: Path) -> Path | None:
    """The repo config file in ``directory``: ``agent-evals.yaml``, else a pyproject.toml with a gate table."""
    return find_repo_config(directory, table_keys=("gate", "overrides", *KNOB_NAMES))


def resolve_policy(
    *,
    repo_config: Path | Layer | None,
    suite_blocks: Mapping[str, Mapping[str, Any] | None],
    overrides: Mapping[str, Any],
) -> Policy:
    """Build the policy from its sources: defaults < repo config < each suite's ``gate:`` block < CLI flags.

    ``repo_config``: the repo config file, or its layer read before. ``overrides``: CLI
    flags (knob name -> value; None values are ignored). Invalid values raise PolicyError naming the
    source and key.
    """
    if isinstance(repo_config, Path):
        repo_config = Layer(source=str(repo_config), block=read_config_block(repo_config))
    layers: list[Layer] = [] if repo_config is None else [repo_config]
    for suite_id, block in suite_blocks.items():
        if block:
            parsed = parse_block(block, source=f"suite {suite_id}")
            layers.append(Layer(source=f"suite {suite_id} gate block", suite=suite_id, block=parsed))
    flags = {k.replace("-", "_"): v for k, v in overrides.items() if v is not None}
    if flags:
        layers.append(
            Layer(source="command line", block=parse_block(flags, source="command line", prefix="flag"))
        )
    return Policy(layers=layers)
