"""Token buckets in Redis: one Lua script takes a token from each of several buckets, or none.

A call is admitted only when every bucket holds a token, and then takes one from each; a
refused call takes nothing and learns how long until all of them hold one. Time is Redis's own
(``TIME``), so every replica sees the same buckets. An untouched key expires once its bucket
would be full again. Used by the gateway (account and account+tool buckets) and the
knowledge-base (account bucket).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from redis.asyncio import Redis

# KEYS: the buckets. ARGV: rate, burst, ttl of each bucket in KEYS order.
# Returns {1} when admitted, else {0, index (1-based) of the bucket waited on longest, seconds}.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local levels, wait, which = {}, 0, 0
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1])
  local v = redis.call('HMGET', KEYS[i], 'tokens', 'ts')
  local tokens, ts = tonumber(v[1]), tonumber(v[2])
  if tokens then levels[i] = math.min(burst, tokens + math.max(0, now - ts) * rate)
  else levels[i] = burst end
  if levels[i] < 1 then
    local w = (1 - levels[i]) / rate
    if w > wait then wait, which = w, i end
  end
end
if wait > 0 then return {0, which, tostring(wait)} end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i] - 1), 'ts', tostring(now))
  redis.call('EXPIRE', KEYS[i], ARGV[3 * i])
end
return {1}
"""


@dataclass(frozen=True)
class Bucket:
    key: str
    per_second: float
    burst: int

    @property
    def ttl_seconds(self) -> int:
        """Seconds until an untouched bucket is full again (then its key may as well be gone)."""
        return math.ceil(self.burst / self.per_second) + 1


@dataclass(frozen=True)
class Refusal:
    bucket: int
    """Index (in the call's order) of the bucket that is longest from holding a token."""
    wait_seconds: float


class RedisTokenBuckets:
    def __init__(self, redis: Redis) -> None:
        self._script = redis.register_script(_TAKE)

    async def take(self, buckets: Sequence[Bucket]) -> Refusal | None:
        """One token from every bucket (None), or from none (the refusal). Redis errors propagate."""
        args: list[float | int] = []
        for bucket in buckets:
            args += [bucket.per_second, bucket.burst, bucket.ttl_seconds]
        reply = await self._script(keys=[b.key for b in buckets], args=args)
        if int(reply[0]) == 1:
            return None
        wait = reply[2].decode() if isinstance(reply[2], bytes) else reply[2]
        return Refusal(int(reply[1]) - 1, float(wait))
