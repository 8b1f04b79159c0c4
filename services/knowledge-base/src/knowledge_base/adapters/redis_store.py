"""Redis adapters: search cursors (JSON with a TTL) and the per-account token bucket."""

from __future__ import annotations

import math
from typing import Any

from redis.asyncio import Redis

from bkn_common import json_codec

# tokens and timestamp in one hash; the server's clock, so replicas agree
_BUCKET = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or t
tokens = math.min(burst, tokens + math.max(0, t - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(t))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 60)
return tostring(wait)
"""


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
        self._redis = redis
        self._prefix = f"{prefix}rate:"
        self._rate, self._burst = per_second, burst
        self._script = redis.register_script(_BUCKET)

    async def take(self, account: str) -> int | None:
        wait = float(await self._script(keys=[self._prefix + account], args=[self._rate, self._burst]))
        return None if wait <= 0 else max(1, math.ceil(wait))
