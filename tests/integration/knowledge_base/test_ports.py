"""The knowledge-base port contracts on the Redis adapters (the same suite the memory ones pass)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from knowledge_base.adapters.redis_store import RedisCursorStore, RedisRateLimiter
from redis.asyncio import Redis

from tests.support.infra import Infra
from tests.support.kb_ports_contract import check_cursor_store, check_rate_limiter

pytestmark = pytest.mark.integration


def test_redis_adapters_keep_the_contract(infra: Infra) -> None:
    async def run() -> None:
        redis = Redis.from_url(infra.redis, decode_responses=True)
        prefix = f"bkn:test{uuid.uuid4().hex[:8]}:knowledge-base:"
        try:
            await check_cursor_store(RedisCursorStore(redis, prefix))
            await check_rate_limiter(RedisRateLimiter(redis, prefix, 0.001, 4), 4)
        finally:
            keys = [k async for k in redis.scan_iter(match=prefix + "*")]
            if keys:
                await redis.delete(*keys)
            await redis.aclose()

    asyncio.run(run())
