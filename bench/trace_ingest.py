"""Measure the trace store's ingest rate: publish N receipt + span events to fresh topics,
then replay them from offset zero into an empty TraceStore through the ProjectionRunner.

    .venv/bin/python bench/trace_ingest.py --events 50000      (or: make bench, as part of all)

Prints the replay rate (events/s), both end to end (runner start to caught up) and for the
apply loop alone. The topics are deleted afterwards unless --keep is given.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from datetime import UTC, datetime

from aiokafka import AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import ALL_TOPICS, projection_topics, topic_for_event
from bkn_common.framework.projection import ProjectionRunner
from bkn_common.infra.kafka import ensure_topics
from trace_recorder.service_layer.store import TraceStore


def workload(total: int) -> list[ev.Event]:
    now = datetime.now(UTC)
    events: list[ev.Event] = []
    for n in range(total // 2):
        trace_id = uuid.uuid4().hex
        operation_id = f"op_{n // 4:032x}"
        events.append(ev.ExecutionReceiptRecorded(
            receipt_id=f"rcpt_{n:032x}", operation_id=operation_id,
            interaction_id=f"int_{n // 64:032x}", kn_id="kn_bench", owner_id="box",
            tool_id="lookup", capability_type="function", caller="bench", proxy_id="px",
            arguments_hash=uuid.uuid4().hex, outcome="succeeded", status_code=200,
            latency_ms=12.5, executed_at=now, trace_id=trace_id))
        events.append(ev.SpanExported(
            trace_id=trace_id, span_id=uuid.uuid4().hex[:16], name="execute_tool lookup",
            service_name="tool-executor", kind="internal", start_time_unix_nano=n * 1000,
            end_time_unix_nano=n * 1000 + 900, status="ok",
            attributes={"bkn.operation_id": operation_id, "gen_ai.tool.name": "lookup"}))
    return events


async def measure(total: int, bootstrap: str, keep: bool) -> dict[str, float]:
    prefix = f"bench-trace-{uuid.uuid4().hex[:8]}."
    await ensure_topics(bootstrap, prefix)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20,
                                max_batch_size=1 << 20)
    await producer.start()
    events = workload(total)
    started = time.perf_counter()
    futures = [await producer.send(topic_for_event(e).full_name(prefix), encode_event(e),
                                   key=event_key(e)) for e in events]
    await asyncio.gather(*futures)
    await producer.stop()
    print(f"published {len(events)} events in {time.perf_counter() - started:.2f}s")

    store = TraceStore()
    runner = ProjectionRunner(bootstrap_servers=bootstrap, consumer_name="trace-recorder",
                              topics=projection_topics("trace-recorder"), projection=store,
                              topic_prefix=prefix)
    started = time.perf_counter()
    await runner.start()
    ready = time.perf_counter()
    await runner.caught_up.wait()
    done = time.perf_counter()
    await runner.stop()
    assert runner.applied == len(events), (runner.applied, runner.dead_lettered)
    print(f"replayed {runner.applied} events: runner start {ready - started:.2f}s, "
          f"consume+apply {done - ready:.2f}s -> {runner.applied / (done - ready):,.0f} events/s "
          f"({runner.applied / (done - started):,.0f} events/s including start)")
    print("store counts:", store.counts())
    result = {"events": float(runner.applied), "runner_start_s": ready - started,
              "consume_apply_s": done - ready,
              "events_per_s": runner.applied / (done - ready),
              "events_per_s_including_start": runner.applied / (done - started)}

    raw = [encode_event(e) for e in events]
    started = time.perf_counter()
    fresh = TraceStore()
    for value in raw:
        fresh.apply(decode_event(value))
    elapsed = time.perf_counter() - started
    print(f"decode+apply alone (no Kafka): {len(raw) / elapsed:,.0f} events/s; "
          f"digest equal: {fresh.digest() == store.digest()}")
    result["decode_apply_only_events_per_s"] = len(raw) / elapsed

    if not keep:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        await admin.delete_topics([s.full_name(prefix) for s in ALL_TOPICS])
        await admin.close()
    return result


def main() -> dict[str, float]:
    """``make bench`` entry: 50,000 receipt and span events from offset zero."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.harness import print_table, write_result

    result = asyncio.run(measure(50_000, "127.0.0.1:9092", keep=False))
    print_table("trace-recorder ingest (receipts + spans, from offset zero)", [result])
    write_result("trace_ingest", {"result": result, "target_events_per_s": 5000})
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    asyncio.run(measure(args.events, args.bootstrap, args.keep))
