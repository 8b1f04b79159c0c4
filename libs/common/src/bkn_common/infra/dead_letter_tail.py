"""Reading back what a consumer dead-lettered: the newest records of its dead-letter topic with
their ``dlq.*`` headers, for ``GET /internal/v1/dead-letters`` (the operator API's view).

The read is a short-lived consumer without a group (nothing committed, nobody rebalanced): it
seeks each partition to ``limit`` records before its end and reads up to that end."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRecord, TopicPartition
from fastapi import APIRouter, Query

from bkn_common.contracts.topics import dead_letter_topic
from bkn_common.infra.kafka import topic_partitions
from bkn_common.infra.kafka_connection import KafkaConnection, kafka_connection
from bkn_common.infra.metrics import ProjectionStats
from bkn_common.infra.settings import ServiceSettings

FIRST_BYTES = 256
READ_SECONDS = 5.0


def describe(record: ConsumerRecord[bytes, bytes], first_bytes: int = FIRST_BYTES) -> dict[str, Any]:
    """One dead letter: why, where it came from, and the first bytes of its value (as text,
    undecodable bytes replaced)."""
    headers = {k: v.decode("utf-8", "replace") for k, v in (record.headers or ()) if k.startswith("dlq.")}
    value = record.value or b""
    source_offset = headers.get("dlq.offset", "")
    return {
        "offset": record.offset,
        "partition": record.partition,
        "timestamp_ms": record.timestamp,
        "reason": headers.get("dlq.reason"),
        "consumer": headers.get("dlq.consumer"),
        "source_topic": headers.get("dlq.topic"),
        "source_partition": int(headers["dlq.partition"]) if headers.get("dlq.partition", "").isdigit() else None,
        "source_offset": int(source_offset) if source_offset.isdigit() else None,
        "key": (record.key or b"").decode("utf-8", "replace"),
        "size": len(value),
        "first_bytes": value[:first_bytes].decode("utf-8", "replace"),
    }


async def newest(kafka: KafkaConnection, topic: str, limit: int) -> list[dict[str, Any]]:
    """Up to ``limit`` newest records of ``topic`` per partition, newest first (none when the
    topic does not exist)."""
    partitions = (await topic_partitions(kafka, [topic])).get(topic, [])
    if not partitions or limit <= 0:
        return []
    consumer = AIOKafkaConsumer(**kafka.client_options(), group_id=None, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in partitions]
        consumer.assign(tps)
        ends = await consumer.end_offsets(tps)
        starts = await consumer.beginning_offsets(tps)
        for tp in tps:
            consumer.seek(tp, max(starts[tp], ends[tp] - limit))
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + READ_SECONDS
        while await _behind(consumer, ends) and time.monotonic() < deadline:
            batches = await consumer.getmany(*tps, timeout_ms=500)
            for records in batches.values():
                out += [describe(r) for r in records if r.offset < ends[TopicPartition(r.topic, r.partition)]]
        return sorted(out, key=lambda d: (d["timestamp_ms"], d["offset"]), reverse=True)
    finally:
        await consumer.stop()


async def _behind(consumer: AIOKafkaConsumer, ends: Mapping[TopicPartition, int]) -> bool:
    return any([await consumer.position(tp) < end for tp, end in ends.items()])


def dead_letters_router(settings: ServiceSettings, runners: Mapping[str, ProjectionStats]) -> APIRouter:
    """``GET /internal/v1/dead-letters``: each projection's dead-letter topic, its count since
    start and its newest records."""
    router = APIRouter(prefix="/internal/v1")
    kafka = kafka_connection(settings)

    @router.get("/dead-letters")
    async def dead_letters(limit: int = Query(20, ge=0, le=200)) -> dict[str, Any]:
        consumers = sorted({r.consumer_name: r for r in runners.values()}.items())
        topics = [dead_letter_topic(name).full_name(settings.topic_prefix) for name, _ in consumers]
        found = await asyncio.gather(*(newest(kafka, t, limit) for t in topics))
        return {"items": [
            {"consumer": name, "topic": topic, "dead_lettered_since_start": runner.dead_lettered,
             "records": records}
            for (name, runner), topic, records in zip(consumers, topics, found, strict=True)]}

    return router
