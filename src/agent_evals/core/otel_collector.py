"""The one span collector of ``--trace otel``: finished spans routed to their trial by trace id (imported only when on)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

logger = logging.getLogger(__name__)

ROOT_SPAN = "agent-evals trial"
"""The name of each trial's root span."""


class Collector(SpanProcessor):
    """Keeps the finished spans of the traces of the trials running now; every other span is ignored."""

    def __init__(self) -> None:
        self.open: dict[int, list[Any]] = {}  # trace id -> the trial's finished spans

    def on_end(self, span: ReadableSpan) -> None:
        span_context = span.context
        if span_context is None:
            return
        spans = self.open.get(span_context.trace_id)
        if spans is not None:
            spans.append(span)  # one append (atomic): spans end in any thread

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


_lock = threading.Lock()
_installed: tuple[Collector, trace.Tracer] | None = None


def installed() -> tuple[Collector, trace.Tracer] | None:
    """The collector, added to the tracer provider on first use: the user's SDK provider when one is
    set, else a new one set as the global provider. None when a provider that takes no span processor
    is set (said once in the log)."""
    global _installed
    if _installed is not None:
        return _installed
    with _lock:
        if _installed is None:
            provider = trace.get_tracer_provider()
            if isinstance(provider, trace.ProxyTracerProvider):  # nobody set one: ours
                provider = TracerProvider()
                trace.set_tracer_provider(provider)
                provider = trace.get_tracer_provider()  # whoever won, should another thread set one
            add = getattr(provider, "add_span_processor", None)
            if not callable(add):
                logger.warning(
                    "--trace otel: the tracer provider set (%s) takes no span processor, so no span is "
                    "collected; set an OpenTelemetry SDK TracerProvider, or none",
                    type(provider).__name__,
                )
                return None
            collector = Collector()
            add(collector)
            _installed = (collector, provider.get_tracer("agent-evals"))
    return _installed


class TrialTrace:
    """One attempt of a trial under its own root span (a fresh trace), current until :meth:`close`."""

    def __init__(self, trial: int) -> None:
        self.spans: list[Any] = []
        """The finished spans of the trial's trace, as they end."""
        self.token: Any = None
        """The trial's place in ``core.tracing`` (set there)."""
        found = installed()
        self._collector = found[0] if found is not None else None
        self._root: Any = None
        self._attached: Any = None
        if found is None:
            return
        root = found[1].start_span(
            ROOT_SPAN, context=otel_context.Context(), attributes={"agent_evals.trial": trial}
        )
        self._root = root
        self._trace_id = root.get_span_context().trace_id
        found[0].open[self._trace_id] = self.spans
        self._attached = otel_context.attach(trace.set_span_in_context(root))

    def close(self) -> None:
        """Stop collecting the trial's spans and end its root span."""
        if self._root is None or self._collector is None:
            return
        otel_context.detach(self._attached)
        self._collector.open.pop(self._trace_id, None)
        self._root.end()
