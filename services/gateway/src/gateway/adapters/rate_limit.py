"""Token buckets per account and per account and tool, in Redis (the shared
:mod:`bkn_common.infra.token_bucket` script takes from both buckets of a call or from neither).

A call takes one token from the account's bucket and one from the bucket of that account and
tool, or none when either is empty; then the answer says how long until both have one. Keys
share the account as a hash tag, so the two buckets of a call sit on one Redis Cluster slot.
"""

from __future__ import annotations

import logging

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bkn_common.infra.token_bucket import Bucket, RedisTokenBuckets
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
