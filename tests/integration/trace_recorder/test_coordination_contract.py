"""One suite, every adapter of the Coordination port: in memory and on the real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.adapters.redis_coordination import RedisCoordination
from trace_recorder.service_layer.ports import Coordination, CoordinationUnavailable

pytestmark = pytest.mark.integration


@pytest.fixture(params=["memory", "redis"])
async def port(request, env) -> AsyncIterator[Coordination]:
    if request.param == "memory":
        yield MemoryCoordination()
        return
    client = Redis.from_url(env.settings().redis_url, decode_responses=True)
    try:
        yield RedisCoordination(client, env.redis_prefix + f"contract:{id(request)}:")
    finally:
        await client.aclose()


async def test_put_get_and_only_if_absent(port) -> None:
    assert await port.get("k") is None
    assert await port.put("k", "v1")
    assert not await port.put("k", "v2", only_if_absent=True)
    assert await port.get("k") == "v1"
    await port.delete("k")
    assert await port.put("k", "v3", only_if_absent=True)


async def test_values_expire(port) -> None:
    await port.put("short", "v", ttl=1)
    assert await port.get("short") == "v"
    await asyncio.sleep(1.2)
    assert await port.get("short") is None


async def test_claim_refresh_and_release(port) -> None:
    assert await port.claim("lease", "a", 60) is None
    assert await port.claim("lease", "a", 60) is None  # refresh by the holder
    assert await port.claim("lease", "b", 60) == "a"
    await port.release("lease", "b")  # not the holder: nothing happens
    assert await port.get("lease") == "a"
    await port.release("lease", "a")
    assert await port.claim("lease", "b", 60) is None


async def test_a_lapsed_claim_can_be_taken(port) -> None:
    assert await port.claim("lease", "a", 1) is None
    await asyncio.sleep(1.2)
    assert await port.claim("lease", "b", 1) is None


async def test_counters(port) -> None:
    assert [await port.incr("n", 60) for _ in range(3)] == [1, 2, 3]
    await port.decr("n")
    assert await port.incr("n", 60) == 3


async def test_locks_exclude_and_time_out(port) -> None:
    order: list[str] = []

    async def hold(tag: str) -> None:
        async with port.lock("l", 5):
            order.append(f"{tag}-in")
            await asyncio.sleep(0.05)
            order.append(f"{tag}-out")

    await asyncio.gather(hold("a"), hold("b"))
    assert order in (["a-in", "a-out", "b-in", "b-out"], ["b-in", "b-out", "a-in", "a-out"])
    async with port.lock("l", 1):
        with pytest.raises(CoordinationUnavailable):
            async with port.lock("l", 0.1):
                pass
    assert await port.ping()
