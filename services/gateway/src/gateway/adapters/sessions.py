"""MCP sessions (the ``SessionStore`` port) in Redis, so any replica serves any request of a
session (in memory for tests: :mod:`.memory_session_store`). A session lives 24 h from its
last use."""

from __future__ import annotations

import json
import secrets

from redis.asyncio import Redis

SESSION_TTL_SECONDS = 24 * 3600


def session_record(account: str, endpoint: str, protocol_version: str | None) -> dict[str, str | None]:
    return {"account": account, "endpoint": endpoint, "protocol_version": protocol_version}


class RedisSessionStore:
    """Key ``<prefix>mcp-session:<id>``: the owner, endpoint and protocol version (JSON)."""

    def __init__(self, redis: Redis, prefix: str, ttl_seconds: int = SESSION_TTL_SECONDS) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl = ttl_seconds

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}mcp-session:{session_id}"

    async def create(self, account: str, endpoint: str, protocol_version: str | None) -> str:
        session_id = secrets.token_hex(16)
        record = session_record(account, endpoint, protocol_version)
        await self._redis.set(self._key(session_id), json.dumps(record), ex=self._ttl)
        return session_id

    async def valid(self, session_id: str, account: str, endpoint: str) -> bool:
        raw = await self._redis.getex(self._key(session_id), ex=self._ttl)  # read + refresh
        if raw is None:
            return False
        record = json.loads(raw)
        return bool(record["account"] == account and record["endpoint"] == endpoint)

    async def terminate(self, session_id: str) -> bool:
        return bool(await self._redis.delete(self._key(session_id)))
