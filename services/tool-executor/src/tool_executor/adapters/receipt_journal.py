"""Receipts not yet acknowledged by Kafka, journaled in Redis so a crashed executor loses none.

Before a call is dispatched its provisional receipt (outcome unknown) is written with a
deadline; once Kafka has acknowledged the final receipt the entry is closed. An entry still
open after its deadline belongs to an executor that stopped mid-call (or could not publish):
:class:`~tool_executor.service_layer.receipt_recovery.ReceiptRecovery` publishes it.

Keys (prefix per deployment): ``receipt:<id>`` (the receipt as an event record),
``receipts-open`` (sorted set of open ids by deadline, epoch seconds) and
``receipt-lease:<id>`` (one replica at a time recovers an entry).
"""

from __future__ import annotations

from redis.asyncio import Redis

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event

ENTRY_TTL_SECONDS = 7 * 24 * 3600  # a safety net: open entries are recovered long before


class RedisReceiptJournal:
    """The :class:`~tool_executor.service_layer.ports.ReceiptJournal` port in Redis."""

    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix
        self._open = f"{prefix}receipts-open"

    def _entry(self, receipt_id: str) -> str:
        return f"{self._prefix}receipt:{receipt_id}"

    async def open(self, receipt: ev.ExecutionReceiptRecorded, deadline: float) -> None:
        """Journal the provisional receipt; recovery may publish it after ``deadline``."""
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._entry(receipt.receipt_id), encode_event(receipt), ex=ENTRY_TTL_SECONDS)
            pipe.zadd(self._open, {receipt.receipt_id: deadline})
            await pipe.execute()

    async def settle(self, receipt: ev.ExecutionReceiptRecorded) -> None:
        """Replace an open entry's provisional receipt by the final one (Kafka refused it)."""
        await self._redis.set(
            self._entry(receipt.receipt_id), encode_event(receipt), ex=ENTRY_TTL_SECONDS, xx=True
        )

    async def close(self, receipt_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self._open, receipt_id)
            pipe.delete(self._entry(receipt_id))
            await pipe.execute()

    async def open_count(self) -> int:
        """Entries open now (in flight, or left by an executor that stopped mid-call)."""
        return int(await self._redis.zcard(self._open))

    async def overdue(self, now: float, limit: int) -> list[str]:
        ids = await self._redis.zrangebyscore(self._open, "-inf", now, start=0, num=limit)
        return [i.decode() if isinstance(i, bytes) else str(i) for i in ids]

    async def claim(self, receipt_id: str, seconds: float) -> bool:
        """One replica recovers an entry; the lease lapses if that replica stops too."""
        lease = f"{self._prefix}receipt-lease:{receipt_id}"
        return bool(await self._redis.set(lease, b"1", nx=True, px=int(seconds * 1000)))

    async def read(self, receipt_id: str) -> ev.ExecutionReceiptRecorded | None:
        raw = await self._redis.get(self._entry(receipt_id))
        if raw is None:
            return None
        event = decode_event(raw if isinstance(raw, bytes) else raw.encode()).event
        return event if isinstance(event, ev.ExecutionReceiptRecorded) else None
