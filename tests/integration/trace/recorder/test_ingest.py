"""The projection ingests every receipt and span from offset zero (speed is measured by
bench/trace_ingest.py, never asserted here)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bkn_common.contracts import events as ev

pytestmark = pytest.mark.integration
N = 4000


async def test_receipts_and_spans_are_ingested_from_offset_zero(env) -> None:
    now = datetime.now(UTC)
    events: list[ev.Event] = []
    for n in range(N // 2):
        trace_id = f"{n:032x}"
        events.append(ev.ExecutionReceiptRecorded(
            receipt_id=f"rcpt_ingest_{n}", operation_id=f"op_ingest_{n % 97}", kn_id="kn",
            owner_id="box", tool_id="tool", capability_type="function", caller="alice",
            proxy_id="px", arguments_hash="ah", outcome="succeeded", latency_ms=1.0,
            executed_at=now, trace_id=trace_id))
        events.append(ev.SpanExported(
            trace_id=trace_id, span_id=f"{n:016x}", name="execute_tool", service_name="te",
            kind="internal", start_time_unix_nano=n, end_time_unix_nano=n + 10, status="ok",
            attributes={"bkn.operation_id": f"op_ingest_{n % 97}"}))
    await env.publish(events)
    store = await env.rebuild()
    counts = store.counts()
    assert (counts["receipts"], counts["spans"]) == (N // 2, N // 2)
