"""Only spans of managed calls go to Trace Core; provenance ids travel as baggage."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from opentelemetry import baggage, context, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, set_span_in_context

from bkn_common.framework.http import TraceContextMiddleware
from bkn_common.infra.span_scope import (
    INTERACTION_ATTRIBUTE,
    OPERATION_ATTRIBUTE,
    ProvenanceSpanFilter,
    provenance_baggage,
)


@pytest.fixture
def shipped() -> Iterator[tuple[trace.Tracer, InMemorySpanExporter]]:
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(ProvenanceSpanFilter(SimpleSpanProcessor(memory), max_pending=8))
    yield provider.get_tracer("unit"), memory
    provider.shutdown()


def names(memory: InMemorySpanExporter) -> list[str]:
    return sorted(s.name for s in memory.get_finished_spans())


def test_an_ad_hoc_call_ships_no_span(shipped: tuple[trace.Tracer, InMemorySpanExporter]) -> None:
    tracer, memory = shipped
    with tracer.start_as_current_span("POST /search"), tracer.start_as_current_span("execute_tool x"):
        pass
    assert names(memory) == []


def test_a_call_marked_managed_inside_its_root_ships_every_span_of_the_trace(
    shipped: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, memory = shipped
    with tracer.start_as_current_span("POST /call"):
        with tracer.start_as_current_span("validate"):
            pass
        with tracer.start_as_current_span("execute_tool x") as tool:
            tool.set_attribute(OPERATION_ATTRIBUTE, "op-1")
        assert names(memory) == []  # held until the local root ends
    assert names(memory) == ["POST /call", "execute_tool x", "validate"]


def test_baggage_marks_the_spans_of_a_downstream_service(
    shipped: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, memory = shipped
    remote = SpanContext(trace_id=7, span_id=9, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    with provenance_baggage(interaction="in-1", operation="op-1"):
        parent = baggage.set_baggage("unrelated", "x", set_span_in_context(NonRecordingSpan(remote)))
    token = context.attach(parent)  # as TraceContextMiddleware does with the request's context
    try:
        with tracer.start_as_current_span("POST /internal/v1/execute"), tracer.start_as_current_span("dispatch"):
            pass
    finally:
        context.detach(token)
    spans = {s.name: s for s in memory.get_finished_spans()}
    assert set(spans) == {"POST /internal/v1/execute", "dispatch"}
    assert spans["dispatch"].attributes is not None
    assert spans["dispatch"].attributes[OPERATION_ATTRIBUTE] == "op-1"
    assert "unrelated" not in spans["dispatch"].attributes


def test_a_span_ending_after_its_root_follows_the_trace_decision(
    shipped: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, memory = shipped
    with tracer.start_as_current_span("POST /call") as root:
        root.set_attribute(INTERACTION_ATTRIBUTE, "in-1")
        late = tracer.start_span("complete in background")
    late.end()
    with tracer.start_as_current_span("POST /other"):
        other_late = tracer.start_span("background of an ad hoc call")
    other_late.end()
    assert names(memory) == ["POST /call", "complete in background"]


def test_a_trace_whose_root_never_ends_here_is_decided_after_a_wait() -> None:
    now = [0.0]
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(
        ProvenanceSpanFilter(SimpleSpanProcessor(memory), max_wait_seconds=60, clock=lambda: now[0])
    )
    tracer = provider.get_tracer("unit")
    managed, other = tracer.start_span("session a"), tracer.start_span("session b")  # stay open
    with trace.use_span(managed, end_on_exit=False), tracer.start_as_current_span("tools/call x") as tool:
        tool.set_attribute(OPERATION_ATTRIBUTE, "op-1")
    with trace.use_span(other, end_on_exit=False), tracer.start_as_current_span("ping"):
        pass
    assert names(memory) == []
    now[0] = 61.0
    with tracer.start_as_current_span("next request"):  # any span end looks at the waiting ones
        pass
    assert names(memory) == ["tools/call x"]


def test_waiting_traces_are_bounded_and_the_managed_ones_still_ship(
    shipped: tuple[trace.Tracer, InMemorySpanExporter],
) -> None:
    tracer, memory = shipped  # at most 8 waiting traces
    for i in range(20):  # local roots that never end
        root = tracer.start_span(f"root {i}")
        with trace.use_span(root, end_on_exit=False), tracer.start_as_current_span(f"child {i}") as child:
            if i % 2 == 0:
                child.set_attribute(OPERATION_ATTRIBUTE, f"op-{i}")
    assert names(memory) == sorted(f"child {i}" for i in range(0, 12, 2))


def test_the_public_edge_drops_the_callers_baggage() -> None:
    seen: dict[str, dict[str, object]] = {}
    app = FastAPI()

    @app.get("/probe")
    async def probe() -> dict[str, str]:
        seen["baggage"] = dict(baggage.get_all())
        return {}

    edge = FastAPI()
    edge.mount("/", TraceContextMiddleware(app, "gateway", edge=True))
    internal = FastAPI()
    internal.mount("/", TraceContextMiddleware(app, "tool-executor"))
    header = {"baggage": f"{OPERATION_ATTRIBUTE}=forged"}
    TestClient(edge).get("/probe", headers=header)
    assert seen["baggage"] == {}
    TestClient(internal).get("/probe", headers=header)
    assert seen["baggage"] == {OPERATION_ATTRIBUTE: "forged"}
