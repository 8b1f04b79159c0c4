"""MCP sessions (the ``SessionStore`` port): in Redis, so any replica serves any request of a
session, and in memory for tests. A session lives 24 h from its last use."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable

from redis.asyncio import Redis

SESSION_TTL_SECONDS = 24 * 3600


def _record(account: str, endpoint: str, protocol_version: str | None) -> dict[str, str | None]:
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
        record = _record(account, endpoint, protocol_version)
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


class MemorySessionStore:
    """One process's sessions (tests): the same expiry on a monotonic clock."""

    def __init__(self, ttl_seconds: float = SESSION_TTL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_seconds
        self._clock = clock
        self._sessions: dict[str, tuple[dict[str, str | None], float]] = {}

    async def create(self, account: str, endpoint: str, protocol_version: str | None) -> str:
        session_id = secrets.token_hex(16)
        self._sessions[session_id] = (_record(account, endpoint, protocol_version), self._clock() + self._ttl)
        return session_id

    async def valid(self, session_id: str, account: str, endpoint: str) -> bool:
        entry = self._sessions.get(session_id)
        if entry is None or entry[1] <= self._clock():
            self._sessions.pop(session_id, None)
            return False
        self._sessions[session_id] = (entry[0], self._clock() + self._ttl)
        return entry[0]["account"] == account and entry[0]["endpoint"] == endpoint

    async def terminate(self, session_id: str) -> bool:
        entry = self._sessions.pop(session_id, None)
        return entry is not None and entry[1] > self._clock()
