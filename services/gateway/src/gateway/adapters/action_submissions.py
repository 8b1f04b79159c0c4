"""``execute_action``'s duplicate window and pending markers (the ``ActionSubmissions`` port):
in Redis, shared by every replica (in memory for tests: :mod:`.memory_action_submissions`).

Keys, after ``bkn:<TOPIC_PREFIX>gateway:``: ``action:dedupe:<fingerprint>`` (the execution id
that took the submission, for the window) and ``action:pending:<execution_id>`` (the accepted
submission, until ontology-query has materialized it).
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis

from bkn_common.framework.digest import canonical


class RedisActionSubmissions:
    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = prefix

    def _key(self, suffix: str) -> str:
        return f"{self._prefix}action:{suffix}"

    async def claim(self, fingerprint: str, execution_id: str, window_seconds: int) -> str | None:
        key = self._key(f"dedupe:{fingerprint}")
        if await self._redis.set(key, execution_id, nx=True, ex=window_seconds):
            return None
        holder = await self._redis.get(key)
        if holder is None:  # the window lapsed between the two calls: try once more
            return await self.claim(fingerprint, execution_id, window_seconds)
        return _text(holder)

    async def release(self, fingerprint: str, execution_id: str) -> None:
        key = self._key(f"dedupe:{fingerprint}")
        holder = await self._redis.get(key)
        if holder is not None and _text(holder) == execution_id:
            await self._redis.delete(key)

    async def mark_pending(self, execution_id: str, record: dict[str, Any], ttl_seconds: int) -> None:
        await self._redis.set(self._key(f"pending:{execution_id}"), canonical(record), ex=ttl_seconds)

    async def pending(self, execution_id: str) -> dict[str, Any] | None:
        raw = await self._redis.get(self._key(f"pending:{execution_id}"))
        record: dict[str, Any] | None = json.loads(raw) if raw else None
        return record


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
