"""Redis adapters: search cursors (JSON with a TTL) and the per-account token bucket (the
shared :mod:`bkn_common.infra.token_bucket` script, one bucket per account)."""

from __future__ import annotations

import math
from typing import Any

from redis.asyncio import Redis

from bkn_common.contracts import json_codec
from bkn_common.infra.token_bucket import Bucket, RedisTokenBuckets


class RedisCursorStore:
    def __init__(self, redis: Redis, prefix: str) -> None:
        self._redis = redis
        self._prefix = f"{prefix}cursor:"

    async def put(self, token: str, value: dict[str, Any], ttl_seconds: int) -> None:
        await self._redis.set(self._prefix + token, json_codec.dumps(value), ex=ttl_seconds)

    async def get(self, token: str) -> dict[str, Any] | None:
        raw = await self._redis.get(self._prefix + token)
        if raw is None:
            return None
        value = json_codec.loads(raw)
        return value if isinstance(value, dict) else None


class RedisRateLimiter:
    def __init__(self, redis: Redis, prefix: str, per_second: float, burst: int) -> None:
        self._prefix = f"{prefix}rate:"
        self._rate, self._burst = per_second, burst
        self._buckets = RedisTokenBuckets(redis)

    async def take(self, account: str) -> int | None:
        refusal = await self._buckets.take([Bucket(self._prefix + account, self._rate, self._burst)])
        return None if refusal is None else max(1, math.ceil(refusal.wait_seconds))
