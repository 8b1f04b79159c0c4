"""The gateway's invocation-id records on real Redis: fresh, running, done, failed and released
(retryable) claims."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from gateway.adapters.idempotency import RedisIdempotency
from tests.support.infra import Infra

FAILURE = {"code": "upstream_timeout", "status": 504, "params": {"timeout": "5"}}


@pytest.fixture
async def store(infra: Infra) -> AsyncIterator[RedisIdempotency]:
    redis = Redis.from_url(infra.redis)
    prefix = f"it:idem:{uuid.uuid4().hex[:8]}:"
    try:
        yield RedisIdempotency(redis, prefix, ttl_seconds=60)
    finally:
        keys = [key async for key in redis.scan_iter(f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


async def test_a_done_call_answers_its_outcome_again(store: RedisIdempotency) -> None:
    assert (await store.claim("dev", "execute_tool", "inv-1", "h")).state == "fresh"
    assert (await store.claim("dev", "execute_tool", "inv-1", "h")).state == "running"
    await store.complete("dev", "execute_tool", "inv-1", "h", {"data": {"ok": 1}})
    again = await store.claim("dev", "execute_tool", "inv-1", "h")
    assert (again.state, again.result, again.error) == ("done", {"data": {"ok": 1}}, None)


async def test_a_failed_call_answers_its_failure_again(store: RedisIdempotency) -> None:
    await store.claim("dev", "execute_tool", "inv-2", "h")
    await store.fail("dev", "execute_tool", "inv-2", "h", FAILURE)
    again = await store.claim("dev", "execute_tool", "inv-2", "h")
    assert (again.state, again.input_hash, again.error, again.result) == ("failed", "h", FAILURE, None)


async def test_a_waiting_retry_sees_the_failure(store: RedisIdempotency) -> None:
    await store.claim("dev", "execute_tool", "inv-3", "h")
    waiting = asyncio.create_task(store.wait_done("dev", "execute_tool", "inv-3", timeout=30))
    await store.fail("dev", "execute_tool", "inv-3", "h", FAILURE)
    done = await waiting
    assert done is not None and (done.state, done.error) == ("failed", FAILURE)


async def test_a_released_id_is_fresh_again_one_attempt_further(store: RedisIdempotency) -> None:
    assert (await store.claim("dev", "execute_tool", "inv-4", "h")).attempt == 0
    await store.release("dev", "execute_tool", "inv-4")
    again = await store.claim("dev", "execute_tool", "inv-4", "h2")  # any input, as a fresh id
    assert (again.state, again.input_hash, again.attempt) == ("fresh", "h2", 1)
    assert (await store.claim("dev", "execute_tool", "inv-4", "h2")).state == "running"
    await store.release("dev", "execute_tool", "inv-4")
    assert (await store.claim("dev", "execute_tool", "inv-4", "h2")).attempt == 2


async def test_a_waiting_retry_stops_waiting_when_the_id_is_released(store: RedisIdempotency) -> None:
    await store.claim("dev", "execute_tool", "inv-5", "h")
    waiting = asyncio.create_task(store.wait_done("dev", "execute_tool", "inv-5", timeout=30))
    await store.release("dev", "execute_tool", "inv-5")
    assert await waiting is None


async def test_only_a_running_claim_is_released(store: RedisIdempotency) -> None:
    await store.claim("dev", "execute_tool", "inv-6", "h")
    await store.complete("dev", "execute_tool", "inv-6", "h", {"data": {"ok": 1}})
    await store.release("dev", "execute_tool", "inv-6")
    assert (await store.claim("dev", "execute_tool", "inv-6", "h")).state == "done"


async def test_a_failure_stored_the_earlier_way_is_read_as_failed(store: RedisIdempotency) -> None:
    """A done record whose outcome holds the failure (the format before the failed state)."""
    await store.claim("dev", "execute_tool", "inv-7", "h")
    await store.complete("dev", "execute_tool", "inv-7", "h", {"data": {"bkn_failed_after_dispatch": FAILURE}})
    again = await store.claim("dev", "execute_tool", "inv-7", "h")
    assert (again.state, again.error, again.result) == ("failed", FAILURE, None)
