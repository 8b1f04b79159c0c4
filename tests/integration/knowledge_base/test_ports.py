"""The knowledge-base port contracts (tests/contracts/kb_ports.py) on the Redis adapters and
real Redis (memory: tests/unit/knowledge_base/test_ports_contract.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from knowledge_base.adapters.redis_store import RedisCursorStore, RedisRateLimiter
from knowledge_base.service_layer.ports import CursorStore
from redis.asyncio import Redis

from tests.contracts import RealTime, scratch_redis
from tests.contracts.kb_ports import CursorStoreContract, LimiterFor, RateLimiterContract
from tests.support.infra import Infra


@pytest.fixture
async def scratch(infra: Infra) -> AsyncIterator[tuple[Redis, str]]:
    async with scratch_redis(infra.redis, decode_responses=True) as (client, prefix):
        yield client, prefix


class TestRedisCursorStore(RealTime, CursorStoreContract):
    @pytest.fixture
    def cursors(self, scratch: tuple[Redis, str]) -> CursorStore:
        return RedisCursorStore(*scratch)


class TestRedisRateLimiter(RealTime, RateLimiterContract):
    @pytest.fixture
    def limiter_for(self, scratch: tuple[Redis, str]) -> LimiterFor:
        return lambda per_second, burst: RedisRateLimiter(*scratch, per_second, burst)
