"""A code-first eval case's definition digest: its input, reference, evaluators and the eval's body."""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from agent_evals.core.definition import canonical, canonical_json, text_digest
from agent_evals.evals.spec import EvalCaseSpec


def spec_definition(spec: EvalCaseSpec) -> str | None:
    """The case's definition digest (``core.definition``): what it hands the eval and how the result
    is judged - the input, the reference, the metadata, ``default_score_key``, the time limit, each
    evaluator (name and code) and the eval function's body (its assertions are the success check;
    comments, blank lines and formatting do not count). Not the target (the agent under test), nor
    the code the body calls, nor labels, dataset, trials or the case's id. None (no digest, never
    a failed run) in the unforeseen case that working it out raises."""
    return spec_definitions([spec])[0]


def spec_definitions(specs: Sequence[EvalCaseSpec]) -> list[str | None]:
    """:func:`spec_definition` of each spec. The digest is that of the canonical JSON of ``{"body",
    "default_score_key", "evaluators", "input", "metadata", "reference", "timeout"}``: the parts an
    eval's cases share are made into text once for a run of specs of one eval, and joined with each
    case's own."""
    out: list[str | None] = []
    shared: tuple[Any, ...] | None = None
    head = tail = ""
    for spec in specs:
        try:
            key = (spec.func, spec.evaluators, spec.default_score_key, spec.timeout)
            if shared is None or any(a is not b for a, b in zip(key, shared, strict=True)):
                shared = key
                head, tail = _shared_parts(spec)
            own = (
                f'"input":{canonical_json(spec.input)},"metadata":{canonical_json(spec.metadata)},'
                f'"reference":{canonical_json(spec.reference)},'
            )
            out.append(text_digest(head + own + tail))
        except Exception:
            shared = None
            out.append(None)
    return out


def _shared_parts(spec: EvalCaseSpec) -> tuple[str, str]:
    """The canonical JSON text of the parts an eval's cases share: ``{"body":...,"default_score_key":
    ...,"evaluators":...,`` and ``"timeout":...}`` (the keys in the order sorted keys write them)."""
    head = (
        f'{{"body":{canonical_json(function_body(spec.func))},'
        f'"default_score_key":{canonical_json(spec.default_score_key)},'
        f'"evaluators":{canonical_json([callable_identity(fn) for fn in spec.evaluators])},'
    )
    return head, f'"timeout":{canonical_json(spec.timeout)}}}'


def callable_identity(fn: Callable[..., Any]) -> Any:
    """What an evaluator is, by content: a function's qualified name and body; a partial's function
    and arguments; any other callable's class and name (its state may hold clients and caches)."""
    try:
        if isinstance(fn, functools.partial):
            return {
                "partial": callable_identity(fn.func),
                "args": canonical(fn.args),
                "keywords": canonical(fn.keywords),
            }
        if inspect.isfunction(fn) or inspect.ismethod(fn):
            return {"function": getattr(fn, "__qualname__", "?"), "body": function_body(fn)}
        name = getattr(fn, "__name__", None)
        cls = type(fn)
        return {
            "callable": f"{cls.__module__}.{cls.__qualname__}",
            "name": name if isinstance(name, str) else None,
        }
    except Exception:  # an odd evaluator must not stop a run
        return {"callable": type(fn).__qualname__}


def function_body(fn: Any) -> str:
    """A function's body as normalised source (``ast.unparse``: decorators, signature, docstring,
    comments and formatting left out); for a function without a source (a lambda shares its line
    with other code, a function made at run time has none) its code object's content."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn))
    code = getattr(fn, "__code__", None)
    cached = _BODIES.get(code) if code is not None else None
    if cached is not None:
        return cached
    body = _source_body(fn) if getattr(fn, "__name__", "") != "<lambda>" else None
    if body is None:
        body = _code_text(code) if code is not None else f"<{type(fn).__qualname__}>"
    if code is not None:
        _BODIES[code] = body
    return body


_BODIES: dict[Any, str] = {}
"""Normalised bodies by code object: the cases of one eval share its function."""


def _source_body(fn: Any) -> str | None:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, ValueError, IndentationError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            body = list(node.body)
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and len(body) > 1
            ):
                body = body[1:]  # the docstring says, it does not check
            return ast.unparse(ast.Module(body=body, type_ignores=[]))
    return None


def _code_text(code: Any) -> str:
    """A code object's content (instructions, constants, names), nested code objects included;
    never its line numbers or file name."""
    consts = [_code_text(c) if inspect.iscode(c) else canonical(c) for c in code.co_consts]
    return str(canonical({"code": code.co_code.hex(), "consts": consts, "names": list(code.co_names)}))
