"""Token buckets per account and per account and tool, in Redis (one script, both buckets).

A call takes one token from the account's bucket and one from the bucket of that account and
tool, or none when either is empty; then the answer says how long until both have one. Time
is Redis's own (``TIME``), so every gateway replica sees the same buckets. Keys share the
account as a hash tag, so the two buckets of a call sit on one Redis Cluster slot.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from gateway.service_layer.rate_limits import Admission, BucketRates

log = logging.getLogger(__name__)

# KEYS: account bucket, account+tool bucket. ARGV: rate, burst, ttl of each (account first).
# Returns {1} when admitted, else {0, scope, seconds until both buckets hold a token}.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local function level(key, rate, burst)
  local v = redis.call('HMGET', key, 'tokens', 'ts')
  local tokens, ts = tonumber(v[1]), tonumber(v[2])
  if not tokens then return burst end
  return math.min(burst, tokens + math.max(0, now - ts) * rate)
end
local rates = {tonumber(ARGV[1]), tonumber(ARGV[4])}
local bursts = {tonumber(ARGV[2]), tonumber(ARGV[5])}
local ttls = {ARGV[3], ARGV[6]}
local levels, wait, scope = {}, 0, ''
for i = 1, 2 do
  levels[i] = level(KEYS[i], rates[i], bursts[i])
  if levels[i] < 1 then
    local w = (1 - levels[i]) / rates[i]
    if w > wait then wait, scope = w, (i == 1 and 'account' or 'tool') end
  end
end
if wait > 0 then return {0, scope, tostring(wait)} end
for i = 1, 2 do
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i] - 1), 'ts', tostring(now))
  redis.call('EXPIRE', KEYS[i], ttls[i])
end
return {1}
"""


def _ttl(rates: BucketRates) -> int:
    """Seconds until an untouched bucket is full again (then its key may as well be gone)."""
    return math.ceil(rates.burst / rates.per_second) + 1


class RedisRateLimiter:
    """The :class:`~gateway.service_layer.rate_limits.RateLimiter` port on Redis."""

    def __init__(self, redis: Redis, prefix: str, account: BucketRates, tool: BucketRates) -> None:
        self._prefix = prefix
        self._account, self._tool = account, tool
        self._script = redis.register_script(_TAKE)

    async def take(self, account: str, tool: str) -> Admission:
        keys = [f"{self._prefix}rl:{{{account}}}:account", f"{self._prefix}rl:{{{account}}}:tool:{tool}"]
        args = (self._account.per_second, self._account.burst, _ttl(self._account),
                self._tool.per_second, self._tool.burst, _ttl(self._tool))
        try:
            reply = await self._script(keys=keys, args=args)
        except RedisError as exc:  # no Redis: calls go unlimited rather than all refused
            log.warning("rate limits not applied (Redis: %s)", exc)
            return Admission(True)
        if int(reply[0]) == 1:
            return Admission(True)
        scope = reply[1].decode() if isinstance(reply[1], bytes) else str(reply[1])
        wait = float(reply[2].decode() if isinstance(reply[2], bytes) else reply[2])
        return Admission(False, scope, wait)


class MemoryRateLimiter:
    """The port in one process (tests, a single replica without Redis)."""

    def __init__(self, account: BucketRates, tool: BucketRates,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._rates = {"account": account, "tool": tool}
        self._clock = clock
        self._buckets: dict[tuple[str, ...], tuple[float, float]] = {}

    def _level(self, key: tuple[str, ...], rates: BucketRates, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(rates.burst), now))
        return min(float(rates.burst), tokens + max(0.0, now - at) * rates.per_second)

    async def take(self, account: str, tool: str) -> Admission:
        now = self._clock()
        keys = {"account": (account,), "tool": (account, tool)}
        levels = {scope: self._level(keys[scope], self._rates[scope], now) for scope in keys}
        waits = {scope: (1 - level) / self._rates[scope].per_second
                 for scope, level in levels.items() if level < 1}
        if waits:
            scope = max(waits, key=lambda s: waits[s])
            return Admission(False, scope, waits[scope])
        for scope, level in levels.items():
            self._buckets[keys[scope]] = (level - 1, now)
        return Admission(True)
