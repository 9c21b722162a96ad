"""Success checkers (state, tool_use, output, scorers): each compiles to scorers plus expected context."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from agent_evals.adapters.preconditions.state import StatePreconditionApplier
from agent_evals.benchmark.json_check import check_schema, validate
from agent_evals.benchmark.schema import OutputCheck, Scenario, ScorerRef, ToolUseCheck
from agent_evals.core.messages import extract_tool_calls
from agent_evals.core.scorer import scorer_name
from agent_evals.core.types import ExpectedResult, Score, TaskResult
from agent_evals.errors import AgentEvalsError
from agent_evals.files.yaml_source import KeyPath, format_path
from agent_evals.record.trial import distinct_key

MATCH_CALLS_SCORERS: dict[str, str] = {
    "exact": "ToolCallExactMatch",
    "subset": "ToolCallSubsetMatch",
    "superset": "ToolCallSupersetMatch",
    "unordered": "ToolCallUnorderedMatch",
    "any_of": "ToolCallAnyMatch",
}
"""``tool_use.match_calls`` value -> the native scorer that implements it."""

VACUOUS_WHEN_EMPTY: dict[str, str] = {
    "superset": "every agent passes it",
    "any_of": "no agent can pass it",
}
"""``match_calls`` values that an empty ``calls`` list turns into a constant verdict."""

NEEDS_REFERENCE = frozenset(
    {
        *MATCH_CALLS_SCORERS.values(),
        "TrajectoryStrictMatch",
        "TrajectoryUnorderedMatch",
        "TrajectorySubsetMatch",
        "TrajectorySupsetMatch",
    }
)
"""Scorers that compare against ``reference_outputs`` when listed under ``scorers``."""


class CheckerError(ValueError):
    """A success checker that cannot be compiled; ``path`` is relative to the scenario."""

    def __init__(self, message: str, path: KeyPath) -> None:
        super().__init__(message)
        self.path = path


@dataclass
class ScenarioPlan:
    """What running a scenario needs: its scorers, the expected result, and its start state."""

    scorers: list[Any]
    """Scorers; two may share a name (both run, the second is recorded as ``X#2``)."""
    expected: ExpectedResult
    """Expected context shared by the scorers (``expected_state``, ``reference_outputs``)."""
    state: dict[str, Any] | None
    """``world`` with the precondition merged in (dotted keys expanded); None when neither is declared."""
    preconditions: list[StatePreconditionApplier] = field(default_factory=list)
    """What seed-style agents get as ``preconditions=``: ``world`` then the scenario's precondition."""
    scorer_paths: dict[str, KeyPath] = field(default_factory=dict)
    """Scorer name (``X#2`` for a second one of a name) -> where it was declared (relative to the scenario)."""


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` merged into a copy of ``base``: mappings merge key by key, anything else replaces."""
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _build(spec: Mapping[str, Any], path: KeyPath, base_dir: Path | None = None) -> Any:
    from agent_evals.adapters.scorers.registry import build_scorer

    try:
        return build_scorer(spec, where=format_path(path), base_dir=base_dir)
    except AgentEvalsError as exc:
        message = str(exc).removeprefix(f"{format_path(path)}: ")
        raise CheckerError(message, path) from exc


class ToolUseScorer:
    """Runs a ToolCall* native on the listed calls; a call listed without ``args`` has ``args: {}``.

    As in the seed, the omitted ``args`` are compared under ``match_args`` like any others: with
    ``exact`` (the default) the call must have no arguments, with ``superset`` any arguments do.
    """

    def __init__(self, check: ToolUseCheck, path: KeyPath) -> None:
        if not check.calls and check.match_calls in VACUOUS_WHEN_EMPTY:
            raise CheckerError(
                f"`calls: []` with match_calls: {check.match_calls} decides nothing "
                f"({VACUOUS_WHEN_EMPTY[check.match_calls]}); list the expected calls, or use "
                "match_calls: exact to require that the agent makes no tool call",
                (*path, "calls"),
            )
        self.check = check
        self.native = _build(
            {"type": MATCH_CALLS_SCORERS[check.match_calls], "tool_args_match_mode": check.match_args}, path
        )
        self.name = scorer_name(self.native)
        self.reference = [self._message(c.name, c.args or {}) for c in check.calls]

    @staticmethod
    def _message(name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": args}]}

    async def __call__(self, result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        """Score the agent's tool calls against the listed ones."""
        outputs = (result.context or {}).get("outputs")
        if outputs is None:
            return Score(
                name=self.name,
                value=0.0,
                passed=False,
                reasoning="the agent returned no messages: put them in TaskResult.context['outputs']",
            )
        try:
            calls = extract_tool_calls(outputs)
        except (TypeError, ValueError) as exc:
            return Score(name=self.name, value=0.0, passed=False, reasoning=f"unreadable tool calls: {exc}")
        actual = [self._message(c["name"], c["args"]) for c in calls]
        wrapped = TaskResult(output=result.output, context={**(result.context or {}), "outputs": actual})
        reference = ExpectedResult(expected="", context={"reference_outputs": self.reference})
        out = self.native(wrapped, reference)
        score: Score = await out if hasattr(out, "__await__") else out
        return score


class OutputScorer:
    """Checks the agent's final text: equals, contains, not_contains, regex, json_schema."""

    name = "output"
    runs_inline: ClassVar[bool] = True
    """Quick string tests: the runner calls it on the event loop instead of in a worker thread."""

    def __init__(self, check: OutputCheck) -> None:
        self.check = check
        flags = 0 if check.case_sensitive else re.IGNORECASE
        self.pattern = re.compile(check.regex, flags) if check.regex is not None else None

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        """Score ``result.output``; metadata lists each failed test."""
        text = result.output or ""
        fold = (lambda s: s) if self.check.case_sensitive else str.casefold
        failures: list[str] = []
        tests = 0
        if self.check.equals is not None:
            tests += 1
            if fold(text.strip()) != fold(self.check.equals.strip()):
                failures.append(f"expected the output to equal {self.check.equals!r}")
        for needle in self.check.contains or []:
            tests += 1
            if fold(needle) not in fold(text):
                failures.append(f"expected the output to contain {needle!r}")
        for needle in self.check.not_contains or []:
            tests += 1
            if fold(needle) in fold(text):
                failures.append(f"expected the output not to contain {needle!r}")
        if self.pattern is not None:
            tests += 1
            if not self.pattern.search(text):
                failures.append(f"expected the output to match /{self.pattern.pattern}/")
        if self.check.json_schema is not None:
            tests += 1
            try:
                problems = validate(json.loads(text), self.check.json_schema)
            except json.JSONDecodeError as exc:
                problems = [f"the output is not JSON ({exc.msg})"]
            failures += [f"JSON Schema: {p}" for p in problems[:5]]
        passed = not failures
        value = 1.0 if passed else max(0.0, 1 - len(failures) / max(tests, 1))
        return Score(
            name=self.name,
            value=value,
            passed=passed,
            reasoning="; ".join(failures) or None,
            metadata={"failures": failures, "checks": tests, "actual": text[:200], **self._expected(tests)},
        )

    def _expected(self, tests: int) -> dict[str, str]:
        """The text an ``equals`` check alone expects (else the case's checks as written say it)."""
        equals = self.check.equals
        return {"expected": equals[:200]} if equals is not None and tests == 1 else {}


Compiled = list[tuple[Any, KeyPath]]
CheckerFn = Callable[[Any, KeyPath, dict[str, Any], "Path | None"], Compiled]
"""``checker(spec, path, context, base_dir)``: ``base_dir`` is where ``module:attr`` scorers import from."""


def _state_checker(spec: Any, path: KeyPath, context: dict[str, Any], base_dir: Path | None) -> Compiled:
    context["expected_state"] = dict(spec)
    return [(_build({"type": "StateMatch"}, path), path)]


def _tool_use_checker(spec: Any, path: KeyPath, context: dict[str, Any], base_dir: Path | None) -> Compiled:
    return [(ToolUseScorer(spec, path), path)]


def _output_checker(spec: Any, path: KeyPath, context: dict[str, Any], base_dir: Path | None) -> Compiled:
    if spec.json_schema is not None:
        try:
            check_schema(spec.json_schema)
        except ValueError as exc:
            raise CheckerError(str(exc), (*path, "json_schema")) from exc
    return [(OutputScorer(spec), path)]


def _scorers_checker(spec: Any, path: KeyPath, context: dict[str, Any], base_dir: Path | None) -> Compiled:
    refs: list[ScorerRef] = spec
    return [
        (_build({"type": r.type, **r.args()}, (*path, i), base_dir), (*path, i)) for i, r in enumerate(refs)
    ]


CHECKERS: dict[str, CheckerFn] = {
    "state": _state_checker,
    "tool_use": _tool_use_checker,
    "output": _output_checker,
    "scorers": _scorers_checker,
}
"""The success checker registry: ``success.<name>`` -> compile function."""


def compile_scenario(
    scenario: Scenario, world: Mapping[str, Any], base_dir: Path | None = None
) -> ScenarioPlan:
    """Compile a scenario's checkers into scorers; raise CheckerError for an unusable one.

    ``base_dir`` (the benchmark file's folder) is searched first for ``type: module:attr`` scorers.
    """
    context: dict[str, Any] = {}
    compiled: Compiled = []
    if scenario.success is not None:
        for key, checker in CHECKERS.items():
            spec = getattr(scenario.success, key)
            if spec is not None:
                compiled += checker(spec, ("success", key), context, base_dir)
    if scenario.expected_state is not None:
        if "expected_state" in context:
            raise CheckerError(
                "expected_state and success.state both give the expected state; keep one", ("expected_state",)
            )
        context["expected_state"] = dict(scenario.expected_state)
    if scenario.reference_outputs is not None:
        try:
            extract_tool_calls(scenario.reference_outputs)
        except (TypeError, ValueError) as exc:
            raise CheckerError(f"unreadable reference: {exc}", ("reference_outputs",)) from exc
        context["reference_outputs"] = scenario.reference_outputs
    compiled += _scorers_checker(scenario.scorers or [], ("scorers",), context, base_dir)
    names = [scorer_name(s) for s, _ in compiled]
    for name, (_, where) in zip(names, compiled, strict=True):
        listed = where[-2:-1] == ("scorers",)
        if name in NEEDS_REFERENCE and listed and scenario.reference_outputs is None:
            raise CheckerError(
                f"{name} compares against `reference_outputs`; add them to the scenario", where
            )
    if scenario.expected_state is not None and "StateMatch" not in names:
        compiled.append((_build({"type": "StateMatch"}, ("expected_state",)), ("expected_state",)))
        names.append(scorer_name(compiled[-1][0]))
    if not compiled:
        raise CheckerError(
            "the scenario has no success criterion; add at least one: `success:` (state, tool_use, output "
            "or scorers), `expected_state:` or `scorers:`",
            (),
        )
    paths: dict[str, KeyPath] = {}
    for name, (_, where) in zip(names, compiled, strict=True):
        paths[distinct_key(name, paths)] = where  # a second X is recorded as X#2, never dropped
    state: dict[str, Any] | None = None
    appliers = [StatePreconditionApplier(world)] if world else []
    if scenario.precondition is not None:
        appliers.append(StatePreconditionApplier(scenario.precondition.state))
    if appliers:
        merged: dict[str, Any] = {}
        for applier in appliers:
            applier.apply(merged)
        state = merged
    return ScenarioPlan(
        scorers=[s for s, _ in compiled],
        expected=ExpectedResult(expected="", context=context or None),
        state=state,
        scorer_paths=paths,
        preconditions=appliers,
    )
