"""The invocation-record contract (tests/contracts/invocation_records.py) on ``RedisIdempotency``
and real Redis, and what only Redis has: the key every gateway replica reads, its TTL, and
records written before the attempt count. (The unit suite's ``DictIdempotency``:
tests/unit/gateway/test_invocation_records_contract.py.)"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from gateway.adapters.idempotency import RedisIdempotency
from gateway.service_layer.ports import Idempotency
from tests.contracts import RealTime, scratch_redis
from tests.contracts.invocation_records import InvocationRecordsContract, RecordsFor
from tests.support.infra import Infra


@pytest.fixture
async def scratch(infra: Infra) -> AsyncIterator[tuple[Redis, str]]:
    async with scratch_redis(infra.redis) as (client, prefix):
        yield client, prefix


class TestRedisIdempotency(RealTime, InvocationRecordsContract):
    @pytest.fixture
    def records_for(self, scratch: tuple[Redis, str]) -> RecordsFor:
        return lambda ttl: RedisIdempotency(*scratch, ttl_seconds=ttl)

    @pytest.fixture
    async def unreachable(self) -> AsyncIterator[Idempotency]:
        with socket.socket() as probe:  # a port nobody listens on
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        redis = Redis(host="127.0.0.1", port=port, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
        try:
            yield RedisIdempotency(redis, "nowhere:", ttl_seconds=60)
        finally:
            await redis.aclose()


async def test_a_record_is_one_key_with_the_records_ttl(scratch: tuple[Redis, str]) -> None:
    redis, prefix = scratch
    records = RedisIdempotency(redis, prefix, ttl_seconds=600)
    key = f"{prefix}idem:dev:execute_tool:inv-1"
    await records.claim("dev", "execute_tool", "inv-1", "h")
    assert json.loads(await redis.get(key)) == {"state": "running", "input_hash": "h", "attempt": 0}
    await redis.expire(key, 100)
    await records.release("dev", "execute_tool", "inv-1")
    assert json.loads(await redis.get(key))["state"] == "retryable"
    assert 0 < await redis.ttl(key) <= 100  # a release keeps the claim's lifetime
    await records.claim("dev", "execute_tool", "inv-1", "h")
    await records.complete("dev", "execute_tool", "inv-1", "h", {"data": {}})
    assert json.loads(await redis.get(key)) == {"state": "done", "input_hash": "h", "result": {"data": {}}}
    assert 590 < await redis.ttl(key) <= 600


async def test_a_record_written_before_the_attempt_count_is_the_first_attempt(scratch: tuple[Redis, str]) -> None:
    redis, prefix = scratch
    records = RedisIdempotency(redis, prefix, ttl_seconds=600)
    await redis.set(f"{prefix}idem:dev:execute_tool:inv-1", json.dumps({"state": "running", "input_hash": "h"}))
    assert (await records.claim("dev", "execute_tool", "inv-1", "h")).attempt == 0
    await records.release("dev", "execute_tool", "inv-1")
    assert (await records.claim("dev", "execute_tool", "inv-1", "h")).attempt == 1
