"""The gateway's Redis adapters pass their ports' contracts (memory: the unit run), keep the
keys every gateway replica already reads, and refresh a session on use."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from gateway.adapters.action_submissions import RedisActionSubmissions
from gateway.adapters.sessions import RedisSessionStore
from tests.contracts import Elapse, action_submissions, session_store
from tests.support.infra import Infra


@pytest.fixture
async def redis(infra: Infra) -> AsyncIterator[Redis]:
    client = Redis.from_url(infra.redis, decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
def elapse() -> Elapse:
    """Redis expires keys on its own clock: only waiting shows it."""
    return asyncio.sleep


@pytest.fixture
async def prefix(redis: Redis) -> AsyncIterator[str]:
    """A key prefix of this test's own, its keys deleted afterwards."""
    name = f"it:gw-ports:{uuid.uuid4().hex[:12]}:"
    yield name
    keys = [k async for k in redis.scan_iter(match=f"{name}*")]
    if keys:
        await redis.delete(*keys)


class TestRedisSessionStore(session_store.SessionStoreContract):
    @pytest.fixture
    def opener(self, redis: Redis, prefix: str) -> session_store.Opener:
        return lambda ttl: RedisSessionStore(redis, prefix, ttl)


class TestRedisActionSubmissions(action_submissions.ActionSubmissionsContract):
    @pytest.fixture
    def opener(self, redis: Redis, prefix: str) -> action_submissions.Opener:
        return lambda: RedisActionSubmissions(redis, prefix)


async def test_a_session_is_one_key_refreshed_on_use(redis: Redis, prefix: str) -> None:
    store = RedisSessionStore(redis, prefix)
    session = await store.create("alice", "compact", "2025-11-25")
    key = f"{prefix}mcp-session:{session}"
    assert json.loads(await redis.get(key)) == {
        "account": "alice", "endpoint": "compact", "protocol_version": "2025-11-25"}
    await redis.expire(key, 100)
    assert await store.valid(session, "alice", "compact")
    assert await redis.ttl(key) > 24 * 3600 - 60


async def test_action_keys(redis: Redis, prefix: str) -> None:
    port = RedisActionSubmissions(redis, prefix)
    assert await port.claim("abc", "aex_1", 60) is None
    assert await redis.get(f"{prefix}action:dedupe:abc") == "aex_1"
    assert 0 < await redis.ttl(f"{prefix}action:dedupe:abc") <= 60
    await port.mark_pending("aex_1", {"status": "pending", "kn_id": "kn"}, 600)
    assert json.loads(await redis.get(f"{prefix}action:pending:aex_1")) == {
        "status": "pending", "kn_id": "kn"}
