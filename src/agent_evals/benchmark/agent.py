"""The agent contract (BaseAgent), resolving `module:attr` references, and one adapter over every agent form."""

from __future__ import annotations

import abc
import importlib
import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_evals.core.executor import run_to_end
from agent_evals.core.faults import absorbed, in_daemon_thread
from agent_evals.core.types import TaskResult
from agent_evals.errors import AgentLoadError, did_you_mean
from agent_evals.files.import_path import search_from


class BaseAgent(abc.ABC):
    """Base class for benchmark agents.

    Subclasses set ``name`` and ``version`` and implement ``run_case``. The runner awaits
    ``setup()`` once before the first scenario and ``teardown()`` once at the end (also when
    setup or a scenario failed). ``run_case`` receives the prompt and, when the benchmark
    declares a world, ``state=`` (a fresh deep copy per trial), and ``preconditions=`` (the
    seed's form: appliers to ``apply(world)`` to the world the agent keeps, ``[]`` when there are
    none); only the keywords its signature names (or all, with ``**context``) are passed. It returns a TaskResult whose
    ``context`` carries ``final_state`` (the world it ends with), ``outputs`` (its messages) and
    optionally ``usage`` (``input_tokens``, ``output_tokens``, ``cost_usd``).
    """

    name: str = ""
    """Agent name, stored in the run record (empty: the class name is used)."""
    version: str | None = None
    """Agent version, stored in the run record (part of the suite fingerprint); None when unset."""

    async def setup(self) -> None:  # noqa: B027 - optional hook, empty by default
        """Prepare shared resources (clients, simulators) before the first scenario."""

    @abc.abstractmethod
    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        """Run one scenario and return its result."""

    async def teardown(self) -> None:  # noqa: B027 - optional hook, empty by default
        """Release what ``setup`` acquired; runs even when setup or a scenario failed."""


def resolve_reference(ref: str, base_dir: Path | None) -> Any:
    """Import ``module:attr``, looking in ``base_dir`` (the YAML file's folder) first."""
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise AgentLoadError(f"agent {ref!r}: expected 'module:Class' or 'module:function'")
    if base_dir is not None:
        search_from(base_dir)
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # sys.exit() or any BaseException of the module: it cannot be imported
        if not absorbed(exc):  # a real Ctrl-C or SIGTERM: the run stops
            raise
        where = f" (searched {base_dir} and sys.path)" if base_dir is not None else ""
        missing = isinstance(exc, ModuleNotFoundError) and exc.name == module_name and base_dir is not None
        hint = did_you_mean(module_name, _module_names(base_dir)) if missing and base_dir else ""
        raise AgentLoadError(
            f"agent {ref!r}: cannot import module {module_name!r}{where}: {type(exc).__name__}: {exc}{hint}"
        ) from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        names = [name for name in vars(module) if not name.startswith("_")]
        hint = did_you_mean(attr, names)
        raise AgentLoadError(
            f"agent {ref!r}: module {module_name!r} has no attribute {attr!r}{hint}"
        ) from exc


def _module_names(folder: Path) -> list[str]:
    """The modules and packages importable from ``folder`` (what a misspelt module name may mean)."""
    try:
        return [
            p.stem if p.suffix == ".py" else p.name
            for p in folder.iterdir()
            if p.suffix == ".py" or (p / "__init__.py").is_file()
        ]
    except OSError:
        return []


class AgentHandle:
    """One calling convention over a BaseAgent class or instance, any run_case object, or a function."""

    def __init__(self, agent: Any, *, base_dir: Path | None = None) -> None:
        if isinstance(agent, str):
            agent = resolve_reference(agent, base_dir)
        if inspect.isclass(agent):
            try:
                agent = agent()
            except BaseException as exc:
                if not absorbed(exc):
                    raise
                raise AgentLoadError(f"agent class {agent.__name__} cannot be created: {exc}") from exc
        self.obj = agent
        if callable(getattr(agent, "run_case", None)):
            self.call = agent.run_case
        elif callable(agent):
            self.call = agent
        else:
            raise AgentLoadError(
                f"{type(agent).__name__} is not an agent: expected a BaseAgent subclass or instance, "
                "an object with run_case(prompt, **context), or a function(prompt, **context)"
            )
        default_name = getattr(agent, "__name__", None) or type(agent).__name__
        self.name = str(getattr(agent, "name", None) or default_name)
        version = getattr(agent, "version", None)
        self.version = str(version) if version is not None else None
        self.params, self.var_kwargs = _parameters(self.call)
        self.is_async = _is_async(self.call)

    def accepts(self, keyword: str) -> bool:
        """Whether ``run_case`` can receive the keyword argument."""
        return self.var_kwargs or keyword in self.params

    def require_state(self) -> None:
        """Fail loudly when the agent can receive neither ``state=`` nor ``preconditions=`` but needs one."""
        if not (self.accepts("state") or self.accepts("preconditions")):
            raise AgentLoadError(
                f"agent {self.name!r} cannot receive the scenario state: its run_case/function takes no "
                "`state` argument (nor `preconditions`, nor **context), but the benchmark declares a world "
                "or preconditions. Add `state` (the merged world), `preconditions` (the seed's appliers: "
                "call `applier.apply(world)`) or **context to its signature."
            )

    async def setup(self) -> None:
        """Await the agent's setup, when it has one."""
        await _maybe_await(getattr(self.obj, "setup", None))

    async def teardown(self) -> None:
        """Await the agent's teardown, when it has one."""
        await _maybe_await(getattr(self.obj, "teardown", None))

    async def run(self, prompt: str, context: Mapping[str, Any]) -> TaskResult:
        """Run one case, passing only the context keywords the agent accepts."""
        kwargs = self._keywords(context)
        if self.is_async:
            out = await self.call(prompt, **kwargs)
        else:
            out = await in_daemon_thread(self.call, prompt, **kwargs)
            if inspect.isawaitable(out):
                out = await out
        return coerce_result(out)

    def run_now(self, prompt: str, context: Mapping[str, Any]) -> TaskResult:
        """Run one case of a sync agent in this thread (a worker thread of the trial driver, no time
        limit); an awaitable it hands back is run to completion here, on a loop of its own."""
        return coerce_result(run_to_end(self.call(prompt, **self._keywords(context))))

    def _keywords(self, context: Mapping[str, Any]) -> dict[str, Any]:
        """The context keywords the agent accepts."""
        if self.var_kwargs:
            return dict(context)
        return {k: v for k, v in context.items() if k in self.params}


def coerce_result(out: Any) -> TaskResult:
    """Accept a TaskResult, a string (the output) or a mapping with ``output``/``context``."""
    if isinstance(out, TaskResult):
        return out
    if isinstance(out, str):
        return TaskResult(output=out)
    if isinstance(out, Mapping) and set(out) <= {"output", "context"}:
        return TaskResult.model_validate({"output": "", **out})
    raise TypeError(f"the agent returned {type(out).__name__}; expected a TaskResult (or a string)")


def _is_async(fn: Any) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    return not inspect.isroutine(fn) and inspect.iscoroutinefunction(type(fn).__call__)


def _parameters(fn: Any) -> tuple[set[str], bool]:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return set(), True
    params = list(signature.parameters.values())
    names = {p.name for p in params[1:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind is p.VAR_KEYWORD for p in params)


async def _maybe_await(method: Any) -> None:
    if method is None or not callable(method):
        return
    out = method()
    if inspect.isawaitable(out):
        await out
