"""The ``@eval`` decorator: declare a code-first eval, its options, its cases and its trials."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from agent_evals.core.run_sync import run_sync
from agent_evals.evals.case_files import is_case_file, read_case_file
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.spec import CASE_KEYS, EvalCaseSpec, read_file_defaults

_UNSET: Any = object()


def _is_context_annotation(annotation: Any) -> bool:
    """``EvalContext`` itself, inside a union (``EvalContext | None``), or as an unresolved string."""
    from agent_evals.evals.context import EvalContext

    if annotation is EvalContext or any(arg is EvalContext for arg in typing.get_args(annotation)):
        return True
    # an annotation `from __future__ import annotations` left as a string that could not be resolved
    return isinstance(annotation, str) and re.search(r"\bEvalContext\b", annotation) is not None


def _annotations(func: Callable[..., Any]) -> dict[str, Any]:
    """Resolved parameter annotations (aliases and string annotations evaluated), or {} when they cannot be."""
    try:
        return typing.get_type_hints(func)
    except Exception:  # a name the annotation uses is not importable at run time: use the raw strings
        return {}


def context_parameter(func: Callable[..., Any], role: str) -> str | None:
    """Name of ``func``'s ``EvalContext`` parameter, None when it has none; TypeError for other required ones."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None
    found: str | None = None
    hints = _annotations(func)
    for param in signature.parameters.values():
        if _is_context_annotation(hints.get(param.name, param.annotation)):
            if found is not None:
                raise TypeError(f"{role} {_qualname(func)} takes two EvalContext parameters; give it one")
            found = param.name
        elif param.default is inspect.Parameter.empty and param.kind not in (
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.VAR_KEYWORD,
        ):
            hint = (
                f" (annotate it: `{param.name}: EvalContext`)"
                if param.annotation is inspect.Parameter.empty
                else ""
            )
            raise TypeError(
                f"{role} {_qualname(func)} has a required parameter {param.name!r}{hint}; an eval takes "
                "no arguments or one parameter annotated EvalContext"
            )
    return found


def wants_context(func: Callable[..., Any]) -> bool:
    """Whether a target takes an ``EvalContext`` parameter (else it is called with the input)."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return False
    hints = _annotations(func)
    return any(_is_context_annotation(hints.get(p.name, p.annotation)) for p in signature.parameters.values())


def _qualname(func: Callable[..., Any]) -> str:
    return getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)


def _check_callable_list(value: Any, name: str) -> tuple[Callable[..., Any], ...]:
    if callable(value):
        return (value,)
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name}= must be a list of functions, got {type(value).__name__}")
    for item in value:
        if not callable(item):
            raise TypeError(f"{name}= must hold functions; {item!r:.60} is not callable")
    return tuple(value)


def _labels(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name}= must be a string or a list of strings, got {value!r:.60}")
    return tuple(value)


def _validated(options: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Check and normalise option values given on @eval, in EVAL_DEFAULTS or in a case."""
    out = dict(options)
    if "dataset" in out and out["dataset"] is not None and not isinstance(out["dataset"], str):
        raise TypeError(f"{where}: dataset= must be a string, got {out['dataset']!r:.60}")
    if "labels" in out:
        out["labels"] = () if out["labels"] is None else _labels(out["labels"], f"{where}: labels")
    if "metadata" in out:
        meta = out["metadata"]
        if meta is not None and not isinstance(meta, Mapping):
            raise TypeError(f"{where}: metadata= must be a dict, got {type(meta).__name__}")
        out["metadata"] = dict(meta or {})
    if "default_score_key" in out:
        key = out["default_score_key"]
        if not isinstance(key, str) or not key:
            raise TypeError(f"{where}: default_score_key= must be a non-empty string, got {key!r}")
    if "timeout" in out and out["timeout"] is not None:
        timeout = out["timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"{where}: timeout= must be a positive number of seconds, got {timeout!r}")
        out["timeout"] = float(timeout)
    if "evaluators" in out:
        out["evaluators"] = (
            ()
            if out["evaluators"] is None
            else _check_callable_list(out["evaluators"], f"{where}: evaluators")
        )
    if "target" in out and out["target"] is not None and not callable(out["target"]):
        raise TypeError(f"{where}: target= must be a function, got {out['target']!r:.60}")
    if "trials" in out and out["trials"] is not None:
        trials = out["trials"]
        if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
            raise ValueError(f"{where}: trials= must be a whole number >= 1, got {trials!r}")
    if out.get("trace") not in (None, "otel", "off"):
        raise ValueError(f"{where}: trace= must be 'otel' or 'off', got {out['trace']!r}")
    if out.get("trace") == "otel":  # a missing SDK is said here, before any trial (exit 2 under `run`)
        from agent_evals.core.tracing import require_sdk

        require_sdk(f"{where}: trace='otel'")
    return out


def _case_key(case: Mapping[str, Any]) -> str:
    """A stable id for a case: its ``id``, else its short scalar input, else a hash of its input."""
    if "id" in case:
        return str(case["id"])
    value = case.get("input")
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value)
        if len(text) <= 40 and text.isprintable() and "]" not in text:
            return text
    blob = json.dumps(value, sort_keys=True, default=repr).encode()
    return hashlib.sha256(blob).hexdigest()[:10]


_CASE_KEY_SET = frozenset(CASE_KEYS)
_CHECKED = frozenset(CASE_KEYS) - {"id", "input", "reference"}
"""The keys of a case that :func:`_validated` checks."""


def _expand_cases(cases: Any, func_name: str) -> list[dict[str, Any]]:
    where = f"@eval on {func_name}: cases"
    if not isinstance(cases, Sequence) or isinstance(cases, (str, bytes)) or not cases:
        raise TypeError(f"{where}= must be a non-empty list of dicts (keys: {', '.join(CASE_KEYS)})")
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for index, case in enumerate(cases):
        if case.__class__ is not dict and not isinstance(case, Mapping):
            raise TypeError(
                f"{where}[{index}] must be a dict (keys: {', '.join(CASE_KEYS)}), got {type(case).__name__}"
            )
        if not case.keys() <= _CASE_KEY_SET:
            unknown = sorted(str(k) for k in case if k not in _CASE_KEY_SET)
            raise ValueError(
                f"{where}[{index}] has unknown key(s) {', '.join(unknown)}; accepted: {', '.join(CASE_KEYS)}"
            )
        # most cases give only an id, an input and a reference: nothing of theirs to check
        entry = _validated(case, f"{where}[{index}]") if case.keys() & _CHECKED else dict(case)
        key = _case_key(case)
        if key in seen:
            if "id" in case:
                raise ValueError(f"{where}[{index}]: id {key!r} is used twice; case ids must be unique")
            seen[key] += 1
            key = f"{key}#{seen[key]}"
        seen.setdefault(key, 1)
        entry["id"] = key
        out.append(entry)
    return out


class EvalFunction:
    """A function decorated with ``@eval``: runnable directly, discoverable by ``agent-evals run``."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        functools.update_wrapper(self, func)
        self.func = func
        """The decorated function."""
        name: str = getattr(func, "__name__", "eval")
        self.name = name
        """The function's name."""
        self.options = _validated(options, f"@eval on {name}")
        """Options given on the decorator (only those given, so file defaults can fill the rest)."""
        code = getattr(func, "__code__", None)
        cases = options.get("cases")
        if "cases" in options and is_case_file(cases):
            cases = read_case_file(cases, code.co_filename if code is not None else "")
        self.cases = _expand_cases(cases, name) if "cases" in options else None
        """Expanded per-case overrides (each with its ``id``), None when ``cases=`` was not given."""
        self.context_param = context_parameter(func, "eval function")
        """Name of the ``EvalContext`` parameter, None when it takes none."""
        target = self.options.get("target")
        self._target_takes_context = target is not None and wants_context(target)
        code = getattr(func, "__code__", None)
        self.file = code.co_filename if code is not None else ""
        """File that defines the function."""
        self.line = code.co_firstlineno if code is not None else None
        """Line of the definition (decorators included)."""

    def specs(self, *, file_label: str | None = None) -> list[EvalCaseSpec]:
        """Resolve the runnable cases: file defaults < decorator options < case overrides."""
        # a factory may name its eval after decorating (``check.__name__ = name``): that name counts
        name = getattr(self, "__name__", None) or getattr(self.func, "__name__", "eval")
        module_globals = getattr(self.func, "__globals__", {})
        defaults = _validated(read_file_defaults(module_globals, self.file), f"{self.file}: EVAL_DEFAULTS")
        merged: dict[str, Any] = {**defaults, **self.options}
        merged["metadata"] = {**defaults.get("metadata", {}), **self.options.get("metadata", {})}
        target = merged.get("target")
        target_ctx = (
            self._target_takes_context
            if target is self.options.get("target")
            else (target is not None and wants_context(target))
        )
        dataset_default = Path(self.file).stem if self.file else None
        base = {
            "func": self.func,
            "name": name,
            "target": target,
            "target_takes_context": target_ctx,
            "context_param": self.context_param,
            "default_score_key": merged.get("default_score_key", "pass"),
            "timeout": merged.get("timeout"),
            "evaluators": merged.get("evaluators", ()),
            "trials": merged.get("trials") or 1,
            "trace": merged.get("trace"),
            "file": file_label if file_label is not None else self.file,
            "line": self.line,
        }
        common = {
            "input": merged.get("input"),
            "reference": merged.get("reference"),
            "dataset": merged.get("dataset") or dataset_default,
            "labels": merged.get("labels", ()),
            "metadata": merged["metadata"],
        }
        if self.cases is None:
            return [EvalCaseSpec(case_key=None, **base, **common)]
        specs = []
        for case in self.cases:
            values = {**common, **{k: v for k, v in case.items() if k != "id"}}
            values["metadata"] = {**common["metadata"], **case.get("metadata", {})}
            values["dataset"] = values["dataset"] or dataset_default
            specs.append(EvalCaseSpec(case_key=case["id"], **base, **values))
        return specs

    async def run_async(self) -> EvalCaseResult | list[EvalCaseResult]:
        """Run every case once and return its result (a list when ``cases=`` expands the eval)."""
        from agent_evals.evals.scheduler import Job, run_jobs

        # The same scheduler as `agent-evals run`: sync evals run in a worker thread (so they may
        # call asyncio.run themselves) and timeouts apply the same way.
        specs = self.specs()
        found: dict[int, EvalCaseResult] = {}

        def keep(index: int, trial: int, result: EvalCaseResult) -> None:
            found[index] = result

        await run_jobs(specs, [Job(i, 0) for i in range(len(specs))], on_result=keep)
        results = [found[i] for i in range(len(specs))]
        return results if self.cases is not None else results[0]

    def __call__(self) -> EvalCaseResult | list[EvalCaseResult]:
        """Run the eval now (once per case) and return its result, for debugging in a REPL."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return run_sync(self.run_async())
        raise RuntimeError(
            f"{self.name}() was called inside a running event loop; use `await {self.name}.run_async()`"
        )

    def __repr__(self) -> str:
        return f"<eval {getattr(self.func, '__qualname__', self.func)!s}>"


@overload
def eval(func: Callable[..., Any], /) -> EvalFunction: ...


@overload
def eval(
    func: None = None,
    /,
    *,
    input: Any = ...,
    reference: Any = ...,
    dataset: str | None = ...,
    labels: Sequence[str] | str | None = ...,
    metadata: Mapping[str, Any] | None = ...,
    default_score_key: str = ...,
    timeout: float | None = ...,
    evaluators: Sequence[Callable[..., Any]] | None = ...,
    target: Callable[..., Any] | None = ...,
    cases: Sequence[Mapping[str, Any]] | None = ...,
    trials: int | None = ...,
    trace: str | None = ...,
) -> Callable[[Callable[..., Any]], EvalFunction]: ...


def eval(
    func: Callable[..., Any] | None = None,
    /,
    *,
    input: Any = _UNSET,
    reference: Any = _UNSET,
    dataset: Any = _UNSET,
    labels: Any = _UNSET,
    metadata: Any = _UNSET,
    default_score_key: Any = _UNSET,
    timeout: Any = _UNSET,
    evaluators: Any = _UNSET,
    target: Any = _UNSET,
    cases: Any = _UNSET,
    trials: Any = _UNSET,
    trace: Any = _UNSET,
) -> EvalFunction | Callable[[Callable[..., Any]], EvalFunction]:
    """Declare a code-first eval, bare (``@eval``) or with options (``@eval(input=..., ...)``).

    The function may take one parameter annotated ``EvalContext``. ``cases=`` (a list of dicts with
    ``id``, ``input``, ``reference``, ``metadata``, ``labels``, ``dataset``, or the path of a ``.csv``
    or ``.jsonl`` file of them, relative to the eval file) expands it into several evals; ``trials=k`` runs each case k times under ``agent-evals run``. Options not given here come
    from the file's ``EVAL_DEFAULTS`` mapping; options given here replace those defaults.
    ``trace="otel"`` runs each trial under an OpenTelemetry trace of its own and records the usage
    and models its GenAI spans tell (needs ``pip install 'agent-evals[otel]'``).
    """
    given = {
        name: value
        for name, value in (
            ("input", input),
            ("reference", reference),
            ("dataset", dataset),
            ("labels", labels),
            ("metadata", metadata),
            ("default_score_key", default_score_key),
            ("timeout", timeout),
            ("evaluators", evaluators),
            ("target", target),
            ("cases", cases),
            ("trials", trials),
            ("trace", trace),
        )
        if value is not _UNSET
    }
    if given.get("cases", 1) is None:
        del given["cases"]

    def decorate(fn: Callable[..., Any]) -> EvalFunction:
        if isinstance(fn, EvalFunction):
            raise TypeError(f"{fn.name} is decorated with @eval twice")
        if not callable(fn) or inspect.isclass(fn):
            what = f"the class {fn.__name__}" if inspect.isclass(fn) else type(fn).__name__
            raise TypeError(f"@eval decorates a function (sync or async), got {what}")
        return EvalFunction(fn, given)

    if func is not None:
        return decorate(func)
    return decorate
