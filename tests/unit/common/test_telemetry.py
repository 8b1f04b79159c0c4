"""Telemetry: OTLP export when configured, span export through Kafka (as events)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from bkn_common.contracts.events import SpanExported, SpansExported, decode_event
from bkn_common.infra.settings import ServiceSettings
from bkn_common.infra.span_export import MAX_RECORD_BYTES, MAX_SPANS_PER_RECORD, batch_records, span_event
from bkn_common.infra.telemetry import build_tracer_provider, resource_attributes


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    received: list[tuple[str, bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.append((self.path, body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", received
    server.shutdown()
    server.server_close()


def test_spans_reach_an_otlp_collector_when_configured(collector: tuple[str, list[tuple[str, bytes]]]) -> None:
    url, received = collector
    provider = build_tracer_provider(ServiceSettings(service_name="unit", otel_exporter_otlp_endpoint=url))
    with provider.get_tracer("unit").start_as_current_span("execute_tool fx_convert"):
        pass
    assert provider.force_flush(10_000)
    provider.shutdown()
    assert received and received[0][0] == "/v1/traces"
    assert b"execute_tool fx_convert" in received[0][1]


def test_a_span_becomes_a_span_event_with_its_attributes_and_parent() -> None:
    provider = TracerProvider()
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("unit")
    with tracer.start_as_current_span("tools/call search_capabilities") as parent:
        parent.set_attribute("mcp.method.name", "tools/call")
        with tracer.start_as_current_span("execute_tool x") as child:
            child.set_attribute("gen_ai.tool.name", "x")
    finished: tuple[ReadableSpan, ...] = memory.get_finished_spans()
    child_event = span_event(next(s for s in finished if s.name == "execute_tool x"), "gateway")
    parent_event = span_event(next(s for s in finished if s.name.startswith("tools/call")), "gateway")
    assert child_event.parent_span_id == parent_event.span_id
    assert child_event.trace_id == parent_event.trace_id and len(child_event.trace_id) == 32
    assert child_event.attributes["gen_ai.tool.name"] == "x"
    assert parent_event.attributes["mcp.method.name"] == "tools/call"
    assert child_event.service_name == "gateway"


def test_resource_attributes_reach_the_resource_and_service_name_stays_the_services() -> None:
    settings = ServiceSettings(
        service_name="gateway",
        otel_resource_attributes="service.namespace=prod, deployment.environment=eu,service.name=x,junk",
    )
    attributes = build_tracer_provider(settings).resource.attributes
    assert attributes["service.namespace"] == "prod"
    assert attributes["deployment.environment"] == "eu"
    assert attributes["service.name"] == "gateway"
    assert resource_attributes("") == {}
    assert resource_attributes("a=b=c") == {"a": "b=c"}


def _span_events(count: int, attribute_bytes: int = 0) -> list[SpanExported]:
    return [SpanExported(
        trace_id=f"{i:032x}", span_id=f"{i:016x}", name=f"s{i}", service_name="gateway",
        kind="INTERNAL", start_time_unix_nano=i, end_time_unix_nano=i + 1, status="UNSET",
        attributes={"pad": "x" * attribute_bytes} if attribute_bytes else {},
    ) for i in range(count)]


def _shipped(records: list[tuple[bytes, bytes]]) -> list[SpanExported]:
    spans: list[SpanExported] = []
    for _key, value in records:
        event = decode_event(value).event
        assert isinstance(event, SpansExported)
        spans += event.spans
    return spans


def test_an_export_batch_travels_as_one_record_keyed_by_its_first_trace() -> None:
    spans = _span_events(6)
    records = batch_records(spans)
    assert len(records) == 1
    assert records[0][0] == spans[0].trace_id.encode()
    assert _shipped(records) == spans


def test_a_batch_past_the_record_limits_is_split_and_no_span_is_lost() -> None:
    many = _span_events(MAX_SPANS_PER_RECORD * 2 + 3)
    assert len(batch_records(many)) == 3
    assert sorted(s.span_id for s in _shipped(batch_records(many))) == sorted(s.span_id for s in many)
    large = _span_events(8, attribute_bytes=MAX_RECORD_BYTES // 3)
    records = batch_records(large)
    assert all(len(value) <= MAX_RECORD_BYTES for _key, value in records)
    assert sorted(s.span_id for s in _shipped(records)) == sorted(s.span_id for s in large)
