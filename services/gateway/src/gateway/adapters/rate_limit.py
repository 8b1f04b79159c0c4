"""Token buckets per account and per account and tool, in Redis (the shared
:mod:`bkn_common.token_bucket` script takes from both buckets of a call or from neither).

A call takes one token from the account's bucket and one from the bucket of that account and
tool, or none when either is empty; then the answer says how long until both have one. Keys
share the account as a hash tag, so the two buckets of a call sit on one Redis Cluster slot.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bkn_common.token_bucket import Bucket, RedisTokenBuckets
from gateway.service_layer.rate_limits import Admission, BucketRates

log = logging.getLogger(__name__)

class RedisRateLimiter:
    """The :class:`~gateway.service_layer.rate_limits.RateLimiter` port on Redis."""

    def __init__(self, redis: Redis, prefix: str, account: BucketRates, tool: BucketRates) -> None:
        self._prefix = prefix
        self._account, self._tool = account, tool
        self._buckets = RedisTokenBuckets(redis)

    async def take(self, account: str, tool: str) -> Admission:
        buckets = [
            Bucket(f"{self._prefix}rl:{{{account}}}:account", self._account.per_second, self._account.burst),
            Bucket(f"{self._prefix}rl:{{{account}}}:tool:{tool}", self._tool.per_second, self._tool.burst),
        ]
        try:
            refusal = await self._buckets.take(buckets)
        except RedisError as exc:  # no Redis: calls go unlimited rather than all refused
            log.warning("rate limits not applied (Redis: %s)", exc)
            return Admission(True)
        if refusal is None:
            return Admission(True)
        return Admission(False, ("account", "tool")[refusal.bucket], refusal.wait_seconds)


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
