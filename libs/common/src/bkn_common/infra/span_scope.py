"""Which spans go to Trace Core: those of managed calls, not of ad hoc traffic.

Trace Core keeps spans to show them with the operations of an interaction; a span of a call
made without ``bkn_context`` is never shown anywhere, yet shipping and storing it cost about
as much CPU as the call itself, and the store would grow with all ad hoc traffic. So the
Kafka span path is scoped to provenance:

* the gateway, once a call is managed, puts the conversation, interaction and operation ids
  in the W3C baggage (:func:`provenance_baggage`), which travels with every internal call;
* :class:`ProvenanceSpanFilter` copies those baggage entries onto each span started under
  them (so tool-executor's spans name their operation) and passes on only spans of a trace
  that carries them. A process's spans of one trace wait until their local root (the span
  whose parent is remote, or none) ends, since the gateway only learns that a call is
  managed inside its server span.

OTLP export, when configured, is not filtered: it sees every span.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from opentelemetry import baggage, context
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

CONVERSATION_ATTRIBUTE = "gen_ai.conversation.id"
INTERACTION_ATTRIBUTE = "bkn.interaction_id"
OPERATION_ATTRIBUTE = "bkn.operation_id"
PROVENANCE_KEYS = (CONVERSATION_ATTRIBUTE, INTERACTION_ATTRIBUTE, OPERATION_ATTRIBUTE)

MAX_PENDING_TRACES = 4096
MAX_DECIDED_TRACES = 4096
MAX_WAIT_SECONDS = 300.0  # longer than any call's time limit


@contextmanager
def provenance_baggage(
    *, conversation: str | None = None, interaction: str | None = None, operation: str | None = None
) -> Iterator[None]:
    """Calls made inside carry these provenance ids in their baggage."""
    ctx = context.get_current()
    for key, value in ((CONVERSATION_ATTRIBUTE, conversation), (INTERACTION_ATTRIBUTE, interaction),
                       (OPERATION_ATTRIBUTE, operation)):
        if value:
            ctx = baggage.set_baggage(key, value, ctx)
    token = context.attach(ctx)
    try:
        yield
    finally:
        context.detach(token)


def carries_provenance(span: ReadableSpan) -> bool:
    attributes = span.attributes or {}
    return INTERACTION_ATTRIBUTE in attributes or OPERATION_ATTRIBUTE in attributes


class _Pending:
    __slots__ = ("born", "managed", "spans")

    def __init__(self, born: float) -> None:
        self.born = born
        self.spans: list[ReadableSpan] = []
        self.managed = False


class ProvenanceSpanFilter(SpanProcessor):
    """Passes to ``inner`` only the spans of traces that belong to a managed call.

    A trace's spans wait for its local root; a trace whose local root this process never sees
    end (it ended before, or was started elsewhere in the process and is still open) is
    decided once it has waited ``max_wait_seconds`` or when ``max_pending`` traces wait.
    """

    def __init__(
        self,
        inner: SpanProcessor,
        max_pending: int = MAX_PENDING_TRACES,
        max_wait_seconds: float = MAX_WAIT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._inner = inner
        self._max_pending = max_pending
        self._max_wait = max_wait_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: OrderedDict[int, _Pending] = OrderedDict()
        self._decided: OrderedDict[int, bool] = OrderedDict()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        for key, value in baggage.get_all(parent_context).items():
            if key in PROVENANCE_KEYS and isinstance(value, str):
                span.set_attribute(key, value)
        self._inner.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        span_context = span.get_span_context()
        if span_context is None:
            return
        with self._lock:
            passed = self._admit(span_context.trace_id, span) + self._expire()
        for admitted in passed:
            self._inner.on_end(admitted)

    def _admit(self, trace_id: int, span: ReadableSpan) -> list[ReadableSpan]:
        decided = self._decided.get(trace_id)
        if decided is not None:  # a span ending after its local root (work left running)
            return [span] if decided or carries_provenance(span) else []
        pending = self._pending.get(trace_id)
        if pending is None:
            pending = self._pending[trace_id] = _Pending(self._clock())
        pending.spans.append(span)
        pending.managed = pending.managed or carries_provenance(span)
        if span.parent is not None and not span.parent.is_remote:
            return []
        return self._decide(trace_id)

    def _expire(self) -> list[ReadableSpan]:
        """Decide the traces that waited too long, or too many, oldest first."""
        passed: list[ReadableSpan] = []
        deadline = self._clock() - self._max_wait
        while self._pending:
            trace_id, oldest = next(iter(self._pending.items()))
            if oldest.born > deadline and len(self._pending) <= self._max_pending:
                break
            passed += self._decide(trace_id)
        return passed

    def _decide(self, trace_id: int) -> list[ReadableSpan]:
        pending = self._pending.pop(trace_id)
        self._decided[trace_id] = pending.managed
        if len(self._decided) > MAX_DECIDED_TRACES:
            self._decided.popitem(last=False)
        return pending.spans if pending.managed else []

    def shutdown(self) -> None:
        with self._lock:
            waiting = [span for trace_id in list(self._pending) for span in self._decide(trace_id)]
        for span in waiting:
            self._inner.on_end(span)
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)
