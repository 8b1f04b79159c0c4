"""The gateway's Redis adapters pass their ports' contracts (memory:
tests/unit/gateway/test_memory_ports.py), keep the keys every gateway replica already reads,
and refresh a session on use."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from gateway.adapters.action_submissions import RedisActionSubmissions
from gateway.adapters.sessions import RedisSessionStore
from tests.contracts import RealTime, action_submissions, scratch_redis, session_store
from tests.support.infra import Infra


@pytest.fixture
async def scratch(infra: Infra) -> AsyncIterator[tuple[Redis, str]]:
    async with scratch_redis(infra.redis, decode_responses=True) as (client, prefix):
        yield client, prefix


class TestRedisSessionStore(RealTime, session_store.SessionStoreContract):
    @pytest.fixture
    def opener(self, scratch: tuple[Redis, str]) -> session_store.Opener:
        return lambda ttl: RedisSessionStore(*scratch, ttl)


class TestRedisActionSubmissions(RealTime, action_submissions.ActionSubmissionsContract):
    @pytest.fixture
    def opener(self, scratch: tuple[Redis, str]) -> action_submissions.Opener:
        return lambda: RedisActionSubmissions(*scratch)


async def test_a_session_is_one_key_refreshed_on_use(scratch: tuple[Redis, str]) -> None:
    redis, prefix = scratch
    store = RedisSessionStore(redis, prefix)
    session = await store.create("alice", "compact", "2025-11-25")
    key = f"{prefix}mcp-session:{session}"
    assert json.loads(await redis.get(key)) == {
        "account": "alice", "endpoint": "compact", "protocol_version": "2025-11-25"}
    await redis.expire(key, 100)
    assert await store.valid(session, "alice", "compact")
    assert await redis.ttl(key) > 24 * 3600 - 60


async def test_action_keys(scratch: tuple[Redis, str]) -> None:
    redis, prefix = scratch
    port = RedisActionSubmissions(redis, prefix)
    assert await port.claim("abc", "aex_1", 60) is None
    assert await redis.get(f"{prefix}action:dedupe:abc") == "aex_1"
    assert 0 < await redis.ttl(f"{prefix}action:dedupe:abc") <= 60
    await port.mark_pending("aex_1", {"status": "pending", "kn_id": "kn"}, 600)
    assert json.loads(await redis.get(f"{prefix}action:pending:aex_1")) == {
        "status": "pending", "kn_id": "kn"}
