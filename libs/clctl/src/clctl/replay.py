"""Rebuild a service's derived state from its topics into a fresh store, and dump topics.

The stores are the services' own projection classes, found through their ``bkn.replay`` entry
points (:mod:`bkn_common.framework.rebuildable`; clctl imports no service package), so a rebuilt store is
computed by exactly the code the live service runs; ``--verify`` compares section digests with
the live service's ``/internal/v1/state/digest`` and lists the keys of any section that differs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from bkn_common.contracts.events import decode_event
from bkn_common.framework.rebuildable import Rebuildable, ReplayStore
from bkn_common.infra.kafka import topic_partitions
from bkn_common.infra.kafka_connection import KafkaConnection, kafka_connection


@dataclass(frozen=True)
class StartAt:
    """Where to start: the beginning, an offset (every partition) or a time."""

    offset: int | None = None
    since: datetime | None = None


@dataclass
class ReplayReport:
    applied: int = 0
    poison: int = 0
    records: int = 0
    total: int = 0


async def _assign(
    bootstrap: str | KafkaConnection, topics: list[str], start: StartAt
) -> tuple[AIOKafkaConsumer, dict[TopicPartition, int]]:
    known = await topic_partitions(bootstrap, topics)
    missing = [t for t in topics if t not in known]
    if missing:
        raise SystemExit(f"topics not found: {', '.join(missing)}")
    consumer = AIOKafkaConsumer(**kafka_connection(bootstrap).client_options(), enable_auto_commit=False,
                                auto_offset_reset="earliest", max_partition_fetch_bytes=16 * 1024 * 1024)
    await consumer.start()
    partitions = [TopicPartition(t, p) for t in topics for p in known[t]]
    consumer.assign(partitions)
    ends = await consumer.end_offsets(partitions)
    if start.since is not None:
        stamp = int(start.since.timestamp() * 1000)
        found = await consumer.offsets_for_times({tp: stamp for tp in partitions})
        for tp in partitions:
            consumer.seek(tp, found[tp].offset if found.get(tp) else ends[tp])
    elif start.offset is not None:
        for tp in partitions:
            consumer.seek(tp, min(start.offset, ends[tp]))
    else:
        await consumer.seek_to_beginning(*partitions)
    return consumer, ends


async def rebuild(
    bootstrap: str | KafkaConnection,
    prefix: str,
    target: Rebuildable,
    store: ReplayStore,
    start: StartAt,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayReport:
    """Fold the target's topics (up to their current end) into ``store`` (a fresh one).

    A record that does not decode or that the store rejects counts as poison and is skipped,
    as the live runner dead-letters it."""
    report = ReplayReport()
    flush = getattr(store, "flush", None)
    consumer, ends = await _assign(bootstrap, [t.full_name(prefix) for t in target.topics], start)
    try:
        positions = {tp: await consumer.position(tp) for tp in ends}
        report.total = sum(max(0, ends[tp] - positions[tp]) for tp in ends)
        if progress:
            progress(0, report.total)
        while any(positions[tp] < ends[tp] for tp in ends):
            batches = await consumer.getmany(timeout_ms=500, max_records=5000)
            for tp, records in batches.items():
                for record in records:
                    if record.offset >= ends[tp]:
                        continue
                    report.records += 1
                    try:
                        store.apply(decode_event(record.value))
                        report.applied += 1
                    except Exception:  # PoisonMessage, or a record the store rejects
                        report.poison += 1
                    positions[tp] = record.offset + 1
            if flush is not None:
                flush()
            if progress:
                progress(report.records, report.total)
    finally:
        await consumer.stop()
    return report


async def dump(
    bootstrap: str | KafkaConnection,
    topic: str,
    start: StartAt,
    until_offset: int | None,
    until_time: datetime | None,
    write: Callable[[str], None],
) -> int:
    """Write records of ``topic`` from ``start`` as JSON lines; returns how many."""
    consumer, ends = await _assign(bootstrap, [topic], start)
    count = 0
    stop_ms = int(until_time.timestamp() * 1000) if until_time else None
    try:
        positions = {tp: await consumer.position(tp) for tp in ends}
        limits = {tp: min(ends[tp], until_offset) if until_offset is not None else ends[tp] for tp in ends}
        while any(positions[tp] < limits[tp] for tp in ends):
            batches = await consumer.getmany(timeout_ms=500, max_records=5000)
            for tp, records in batches.items():
                for record in records:
                    positions[tp] = record.offset + 1
                    if record.offset >= limits[tp] or (stop_ms is not None and record.timestamp > stop_ms):
                        positions[tp] = limits[tp]
                        continue
                    write(json.dumps(_record_json(record), ensure_ascii=False))
                    count += 1
    finally:
        await consumer.stop()
    return count


def _record_json(record: Any) -> dict[str, Any]:
    try:
        value: Any = json.loads(record.value) if record.value is not None else None
    except ValueError:
        value = record.value.decode(errors="replace")
    return {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "timestamp_ms": record.timestamp,
        "key": record.key.decode(errors="replace") if record.key else None,
        "headers": {k: v.decode(errors="replace") for k, v in (record.headers or ())},
        "value": value,
    }
