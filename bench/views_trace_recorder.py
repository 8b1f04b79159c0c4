"""trace-recorder's view on a database, measured: ``measure(events)`` (called by bench/views.py).

Publishes ``events`` trace events in the proportions of managed calls (per interaction: a
start, a finish and four calls; per call a pending and a final operation record, a retrieval
evidence, tool-executor's receipt and four spans) to fresh topics, then runs the real service
(``python -m trace_recorder``) on each store.

An *event* is one fact the view folds: an interaction start or finish, an operation record, an
evidence, a receipt, or one span. Spans travel as the services write them since issue 16: each
service's batch span processor sends the spans it gathered as ``trace.spans.exported`` records
(``bkn_common.infra.span_export.batch_records``: up to 128 spans a record); here each service flushes
once every ``SPAN_FLUSH_INTERACTIONS`` interactions (its 500 ms export interval at about 200
managed calls per second). So there are fewer Kafka *records* than events (``records``).

* ``ingest_events_per_s``: events / (process start -> ``/readyz`` green), folding from offset
  zero into an empty SQLite file and an empty PostgreSQL schema (``ingest_records_per_s``: the
  same in Kafka records);
* on PostgreSQL (the deployment store): ``rss_mb`` after the fold, ``restart_ready_s`` (kill -9
  -> ``/readyz`` green, resuming from the stored offsets) and ``interaction_view_p50_ms``
  (``GET /internal/v1/interactions/{id}`` of random interactions, signed like a mesh service).

    .venv/bin/python -m bench.views_trace_recorder --events 100000   (make bench: bench/views.py calls it)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaProducer

from bench.harness import percentile
from bkn_common.contracts import events as ev
from bkn_common.contracts.events import encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import topic_for_event
from bkn_common.infra.kafka import ensure_topics
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.mesh_client import MeshAuth
from bkn_common.infra.span_export import MAX_SPANS_PER_RECORD

ROOT = Path(__file__).resolve().parents[1]
CALLS = 4  # managed calls per interaction
SPANS = ("gateway", "tool-executor", "tool-executor", "trace-recorder")  # per call, by service
PER_INTERACTION = 2 + CALLS * (4 + len(SPANS))  # events (facts), spans counted one by one
SPAN_FLUSH_INTERACTIONS = 25


def workload(events: int) -> Iterator[ev.Event]:
    """About ``events`` facts (see the module docstring): records in the order the services
    write them, each service's spans in batch records."""
    t0 = datetime.now(UTC) - timedelta(hours=1)
    interactions = max(1, events // PER_INTERACTION)
    gathered: dict[str, list[ev.SpanExported]] = {}
    for n in range(interactions):
        conv, inter, at = f"conv_{n:012x}", f"int_{n:012x}", t0 + timedelta(milliseconds=n)
        yield ev.InteractionStarted(conversation_id=conv, interaction_id=inter, new_conversation=True,
                                    account="bench", agent_name="bench", question=f"question {n}",
                                    started_at=at)
        for k in range(CALLS):
            op, trace = f"op_{n:012x}_{k}", uuid.uuid4().hex
            base = {"operation_id": op, "operation_key": f"key_{n}_{k}", "conversation_id": conv,
                    "interaction_id": inter, "tool_name": "execute_tool", "input_hash": f"h{k}",
                    "receipt_id": f"rcpt_{n:012x}_{k}", "recorded_at": at, "correlation": f"c{k}"}
            yield ev.OperationRecorded(**base, receipt_status="pending", evidence_durability="pending")
            yield ev.EvidenceRecorded(
                evidence_id=f"ev_{n:012x}_{k}", operation_id=op, interaction_id=inter,
                evidence_type="retrieval", attempt=1, attributes={"query_hash": trace[:12], "candidates": 5},
                source_refs=(f"object_instance:kn:ot:{k}",), recorded_at=at)
            yield ev.OperationRecorded(**base, receipt_status="completed", evidence_durability="durable",
                                       result={"rows": k})
            yield ev.ExecutionReceiptRecorded(
                receipt_id=f"exec_{n:012x}_{k}", operation_id=op, conversation_id=conv,
                interaction_id=inter, kn_id="kn", owner_id="box", tool_id="tool",
                capability_type="function", caller="bench", proxy_id="px", arguments_hash="ah",
                outcome="succeeded", status_code=200, latency_ms=12.5, executed_at=at, trace_id=trace)
            start = int(at.timestamp() * 1e9)
            for s, service in enumerate(SPANS):
                gathered.setdefault(service, []).append(ev.SpanExported(
                    trace_id=trace, span_id=f"{s:04x}{n:012x}", name=f"step {s}", service_name=service,
                    kind="internal", start_time_unix_nano=start + s, end_time_unix_nano=start + 1000 + s,
                    status="ok", attributes={"bkn.operation_id": op, "bkn.interaction_id": inter}))
        yield ev.InteractionFinished(
            conversation_id=conv, interaction_id=inter, outcome="completed", answer="done",
            execution_status="succeeded", evidence_status="complete", finished_at=at, operations=CALLS)
        if (n + 1) % SPAN_FLUSH_INTERACTIONS == 0 or n + 1 == interactions:
            for spans in gathered.values():
                for i in range(0, len(spans), MAX_SPANS_PER_RECORD):
                    yield ev.SpansExported(spans=tuple(spans[i:i + MAX_SPANS_PER_RECORD]))
            gathered.clear()


def facts(event: ev.Event) -> int:
    """How many events (facts) a record carries."""
    return len(event.spans) if isinstance(event, ev.SpansExported) else 1


async def publish(bootstrap: str, prefix: str, events: int) -> tuple[int, int]:
    await ensure_topics(bootstrap, prefix)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=20,
                                max_batch_size=1 << 20)
    await producer.start()
    sent = records = 0
    try:
        pending = []
        for event in workload(events):
            pending.append(await producer.send(topic_for_event(event).full_name(prefix),
                                               encode_event(event), key=event_key(event)))
            sent += facts(event)
            records += 1
            if len(pending) >= 20_000:
                await asyncio.gather(*pending)
                pending.clear()
        await asyncio.gather(*pending)
    finally:
        await producer.stop()
    return sent, records


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "trace_recorder"], env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT)


def _ready(port: int, process: subprocess.Popen[bytes], timeout: float = 3600) -> float:
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        if process.poll() is not None:
            raise RuntimeError(f"trace-recorder exited ({process.returncode})")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return time.perf_counter() - began
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError("trace-recorder not ready in time")


def _rss_mb(pid: int) -> float | None:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def _view_p50(port: int, secret: str, interactions: int, samples: int = 300) -> float:
    rng = random.Random(5)
    took = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10,
                      auth=MeshAuth(MeshSigner(secret, "bench"))) as client:
        for _ in range(samples):
            n = rng.randrange(interactions)
            began = time.perf_counter()
            response = client.get(f"/internal/v1/interactions/int_{n:012x}")
            took.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200, response.text
    return round(percentile(took, 50), 2)


@contextlib.contextmanager
def _postgres() -> Iterator[str]:
    """``POSTGRES_URL``, or the local PostgreSQL of ``scripts/postgres.sh``, stopped again at
    the end when this started it (``make bench`` leaves no server behind)."""
    url = os.environ.get("POSTGRES_URL")
    if url:
        yield url
        return
    script = str(ROOT / "scripts" / "postgres.sh")
    was_running = subprocess.run([script, "status"], capture_output=True).returncode == 0
    subprocess.run([script, "start"], check=True)
    try:
        yield subprocess.run([script, "url"], check=True, capture_output=True, text=True).stdout.strip()
    finally:
        if not was_running:
            subprocess.run([script, "stop"], check=False)


def measure(events: int = 1_000_000) -> dict[str, Any]:
    """See the module docstring."""
    bootstrap = os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092")
    prefix = f"bench-views-{uuid.uuid4().hex[:8]}."
    sent, records = asyncio.run(publish(bootstrap, prefix, events))
    secret = secrets.token_urlsafe(32)
    folder = Path(tempfile.mkdtemp(prefix="bench-trace-views-"))
    base = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": bootstrap, "TOPIC_PREFIX": prefix,
            "TRACE_RECORDER_REDIS_PREFIX": f"bkn:{prefix}trace:", "SPAN_EXPORT_TO_KAFKA": "false",
            "OTEL_SDK_DISABLED": "true", "MESH_INTERNAL_SECRET": secret, "PYTHONUNBUFFERED": "1"}
    schema = f"bench_{uuid.uuid4().hex[:10]}"
    with _postgres() as postgres_url:
        stores = {
            "sqlite": {"TRACE_RECORDER_STORE": "sqlite", "TRACE_RECORDER_SQLITE_PATH": str(folder / "view.sqlite3")},
            "postgresql": {"TRACE_RECORDER_STORE": "postgresql", "TRACE_RECORDER_DATABASE_URL": postgres_url,
                           "TRACE_RECORDER_DATABASE_SCHEMA": schema},
        }
        result: dict[str, Any] = {
            "events": sent, "records": records,
            "events_are": "facts folded: interaction starts and finishes, operation records, evidence, "
                          f"receipts and spans one by one; spans in batch records of up to {MAX_SPANS_PER_RECORD}",
            "ingest_events_per_s": {}, "ingest_records_per_s": {}}
        for name, store_env in stores.items():
            port = _free_port()
            env = {**base, **store_env, "TRACE_RECORDER_PORT": str(port)}
            process = _start(env, folder / f"{name}.log")
            try:
                fold_s = _ready(port, process)
                result["ingest_events_per_s"][name] = round(sent / fold_s)
                result["ingest_records_per_s"][name] = round(records / fold_s)
                if name == "postgresql":
                    result["rss_mb"] = _rss_mb(process.pid)
                    process.send_signal(signal.SIGKILL)
                    process.wait()
                    process = _start(env, folder / f"{name}.log")
                    result["restart_ready_s"] = round(_ready(port, process), 3)
                    result["interaction_view_p50_ms"] = _view_p50(port, secret, sent // PER_INTERACTION)
            finally:
                process.kill()
                process.wait()
        from trace_recorder.adapters.postgres_view import PostgresDialect

        PostgresDialect(stores["postgresql"]["TRACE_RECORDER_DATABASE_URL"], schema=schema).drop_schema()
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    print(json.dumps(measure(args.events), indent=2))


if __name__ == "__main__":
    main()
