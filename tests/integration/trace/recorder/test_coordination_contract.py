"""The Coordination contract (tests/contracts/coordination.py) on the real Redis, and what only
Redis has: an unreachable server, scripts sent by their sha. (The memory adapter: the unit
suite, tests/unit/trace_recorder/test_coordination_contract.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from tests.contracts import RealTime
from tests.contracts.coordination import CoordinationContract, claim_op
from trace_recorder.adapters.redis_coordination import RedisCoordination
from trace_recorder.service_layer.ports import Coordination, CoordinationUnavailable

pytestmark = pytest.mark.integration


class TestRedisCoordination(RealTime, CoordinationContract):
    @pytest.fixture
    async def port(self, request: pytest.FixtureRequest, env: Any) -> AsyncIterator[Coordination]:
        client = Redis.from_url(env.settings().redis_url, decode_responses=True)
        try:
            yield RedisCoordination(client, env.redis_prefix + f"contract:{id(request)}:")
        finally:
            await client.aclose()


async def test_claim_operation_when_unreachable() -> None:
    client = Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.2)
    try:
        with pytest.raises(CoordinationUnavailable):
            await claim_op(RedisCoordination(client, "nowhere:"))
    finally:
        await client.aclose()


async def test_scripts_take_one_round_trip_by_sha_on_redis(env) -> None:
    client = Redis.from_url(env.settings().redis_url, decode_responses=True)
    prefix = env.redis_prefix + "contract:sha:"
    port = RedisCoordination(client, prefix)
    sent: list[str] = []
    original = client.execute_command

    async def counted(*args: Any, **kw: Any) -> Any:
        sent.append(str(args[0]).upper())
        return await original(*args, **kw)

    try:
        client.execute_command = counted  # type: ignore[method-assign]
        assert (await claim_op(port, "op:0", ttl=30, counter_ttl=3600)).status == "new"
        # by its sha; the text goes only to a server that does not know it yet
        assert sent in (["EVALSHA"], ["EVALSHA", "SCRIPT LOAD", "EVALSHA"])
        await port.claim("warm", "x", 1)
        await port.incr("warm:n", 1)
        await port.release("warm", "x")
        sent.clear()
        assert (await claim_op(port, "op:1", ttl=30, counter_ttl=3600)).status == "new"
        assert sent == ["EVALSHA"]  # begin's hot path: one round trip
        sent.clear()
        assert await port.claim("lease", "int_a", 60) is None
        assert await port.incr("m", 60) == 1
        await port.release("lease", "int_b")
        assert sent == ["EVALSHA"] * 3
        client.execute_command = original  # type: ignore[method-assign]
        assert 0 < await client.ttl(prefix + "op:1") <= 30
        assert 0 < await client.ttl(prefix + "lease") <= 60
        assert 3500 < await client.ttl(prefix + "n") <= 3600
    finally:
        client.execute_command = original  # type: ignore[method-assign]
        await client.aclose()
