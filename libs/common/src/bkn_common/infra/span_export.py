"""Ships finished OpenTelemetry spans through Kafka to trace-recorder.

The SDK's batch processor calls :meth:`KafkaSpanExporter.export` from its worker thread; the
exporter hands the batch to the service's event loop, where an idempotent producer sends the
batch as one ``trace.spans.exported`` record (keyed by its first span's trace id; a batch
larger than ``MAX_SPANS_PER_RECORD`` spans or ``MAX_RECORD_BYTES`` goes as several records).
Before issue 16 every span was its own ``trace.span.exported`` record; trace-recorder folds
both.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from aiokafka import AIOKafkaProducer
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from bkn_common.contracts.events import SpanExported, SpansExported, encode_event
from bkn_common.contracts.topics import SPANS
from bkn_common.infra.kafka_connection import KafkaConnection
from bkn_common.infra.settings import ServiceSettings
from bkn_common.infra.span_scope import ProvenanceSpanFilter

log = logging.getLogger(__name__)
_SCALARS = (str, bool, int, float)
MAX_SPANS_PER_RECORD = 128
MAX_RECORD_BYTES = 900 * 1024  # below the producer's and the broker's 1 MiB default


def _attribute(value: Any) -> Any:
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, _SCALARS)]
    return str(value)


def span_event(span: ReadableSpan, service_name: str) -> SpanExported:
    context = span.get_span_context()
    assert context is not None
    return SpanExported(
        trace_id=format(context.trace_id, "032x"),
        span_id=format(context.span_id, "016x"),
        parent_span_id=format(span.parent.span_id, "016x") if span.parent else None,
        name=span.name,
        service_name=service_name,
        kind=span.kind.name,
        start_time_unix_nano=span.start_time or 0,
        end_time_unix_nano=span.end_time or 0,
        status=span.status.status_code.name,
        attributes={k: _attribute(v) for k, v in (span.attributes or {}).items()},
    )


def batch_records(spans: Sequence[SpanExported]) -> list[tuple[bytes, bytes]]:
    """(key, value) of the records that carry ``spans``: as few as the limits allow."""
    records: list[tuple[bytes, bytes]] = []
    pending = [list(spans[i:i + MAX_SPANS_PER_RECORD]) for i in range(0, len(spans), MAX_SPANS_PER_RECORD)]
    while pending:
        chunk = pending.pop()
        value = encode_event(SpansExported(spans=tuple(chunk)))
        if len(value) > MAX_RECORD_BYTES and len(chunk) > 1:
            half = len(chunk) // 2
            pending += [chunk[half:], chunk[:half]]
            continue
        records.append((chunk[0].trace_id.encode(), value))
    return records


class KafkaSpanExporter(SpanExporter):
    def __init__(self, service_name: str, topic: str) -> None:
        self._service = service_name
        self._topic = topic
        self._loop: asyncio.AbstractEventLoop | None = None
        self._producer: AIOKafkaProducer | None = None

    def bind(self, loop: asyncio.AbstractEventLoop | None, producer: AIOKafkaProducer | None) -> None:
        self._loop, self._producer = loop, producer

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        loop, producer = self._loop, self._producer
        if loop is None or producer is None or loop.is_closed():
            return SpanExportResult.SUCCESS  # not started yet or shutting down: spans are dropped
        events = [span_event(s, self._service) for s in spans if s.get_span_context() is not None]
        future = asyncio.run_coroutine_threadsafe(self._send(producer, events), loop)
        try:
            future.result(timeout=10)
        except Exception as exc:
            log.warning("span export to Kafka failed: %s", exc)
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    async def _send(self, producer: AIOKafkaProducer, events: list[SpanExported]) -> None:
        sends = [
            await producer.send(self._topic, value, key=key) for key, value in batch_records(events)
        ]
        await asyncio.gather(*sends)

    def shutdown(self) -> None:
        self.bind(None, None)


def kafka_span_processor(settings: ServiceSettings) -> tuple[SpanProcessor, KafkaSpanExporter]:
    """Batched export to the spans topic of the spans of managed calls (see ``span_scope``)."""
    exporter = KafkaSpanExporter(settings.service_name, SPANS.full_name(settings.topic_prefix))
    return ProvenanceSpanFilter(BatchSpanProcessor(exporter, schedule_delay_millis=500)), exporter


@asynccontextmanager
async def exporting_spans(settings: ServiceSettings, exporter: KafkaSpanExporter) -> AsyncIterator[None]:
    """Lifespan resource: a producer for the exporter while the service runs."""
    producer = AIOKafkaProducer(
        **KafkaConnection.from_settings(settings).client_options(), acks="all",
        enable_idempotence=True,
    )
    try:
        await producer.start()
    except Exception as exc:  # telemetry must never keep a service from starting
        log.warning("span export disabled: %s", exc)
        yield
        return
    exporter.bind(asyncio.get_running_loop(), producer)
    try:
        yield
    finally:
        exporter.bind(None, None)
        await producer.stop()
