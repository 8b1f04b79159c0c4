"""What one acks=all record costs a broker in CPU on this machine, without the mesh.

    python bench/kafka_record_cost.py

On a private broker (``scripts/kafka.sh``, as bench/execute_tool uses): N records of 600
bytes sent one at a time by an idempotent acks=all producer, 10 ms apart (about the mesh's
call rate), (a) with nobody reading the topic, (b) with one consumer long-polling it as the
projections do (``fetch_min_bytes`` 1, ``fetch_max_wait_ms`` 500), (c) with a consumer that
lets records gather (``fetch_min_bytes`` 1 MiB, ``fetch_max_wait_ms`` 100). Broker CPU per
record from /proc, also less its idle burn measured just before each case. It tells what
bench/execute_tool's Kafka CPU per call can come down to for a given number of records.

Measurements only, nothing asserted. Results: bench/results/kafka_record_cost.json.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import cpu_snapshot, print_table, private_kafka, write_result

N = 2000
WARMUP = 300
IDLE_SECONDS = 10.0
GAP_SECONDS = 0.01
CASES: list[tuple[str, dict[str, int] | None]] = [
    ("no consumer", None),
    ("consumer: min 1 B, wait 500 ms", {}),
    ("consumer: min 1 MiB, wait 100 ms", {"fetch_min_bytes": 1 << 20, "fetch_max_wait_ms": 100}),
]


async def _drain(reader: Any, stop: asyncio.Event) -> None:
    while not stop.is_set():
        await reader.getmany(timeout_ms=1000)


async def _measure(bootstrap: str, pid: int) -> list[dict[str, Any]]:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic("record-cost", 3, 1)])
    await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    for i in range(WARMUP):
        await producer.send_and_wait("record-cost", b"x" * 600, key=str(i).encode())

    def cpu() -> float:
        return cpu_snapshot({"kafka": pid})["kafka"]

    rows = []
    for label, options in CASES:
        consumer = None
        if options is not None:
            consumer = AIOKafkaConsumer("record-cost", bootstrap_servers=bootstrap,
                                        auto_offset_reset="latest", enable_auto_commit=False,
                                        **options)
            await consumer.start()
        stop = asyncio.Event()

        reading = asyncio.create_task(_drain(consumer, stop)) if consumer else None
        idle_before = cpu()
        await asyncio.sleep(IDLE_SECONDS)
        idle = (cpu() - idle_before) / IDLE_SECONDS
        before, began = cpu(), time.monotonic()
        for i in range(N):
            await producer.send_and_wait("record-cost", b"x" * 600, key=str(i).encode())
            await asyncio.sleep(GAP_SECONDS)
        seconds, used = time.monotonic() - began, cpu() - before
        stop.set()
        if reading is not None and consumer is not None:
            await reading
            await consumer.stop()
        rows.append({"case": label, "cpu_ms_per_record": used * 1000 / N,
                     "less_idle_ms_per_record": (used - idle * seconds) * 1000 / N,
                     "idle_percent_of_a_core": idle * 100})
    await producer.stop()
    return rows


def main() -> dict[str, Any]:
    with private_kafka("record-cost") as broker:
        assert broker.pid is not None
        rows = asyncio.run(_measure(broker.bootstrap, broker.pid))
    print_table(f"Broker CPU per acks=all record (private broker, {N} records sent one at a time, "
                f"{GAP_SECONDS * 1000:.0f} ms apart)", rows)
    payload = {"config": {"n": N, "warmup": WARMUP, "idle_seconds": IDLE_SECONDS,
                          "gap_seconds": GAP_SECONDS, "record_bytes": 600}, "cases": rows}
    path = write_result("kafka_record_cost", payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
