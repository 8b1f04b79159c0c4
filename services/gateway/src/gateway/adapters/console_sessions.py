"""Console logins (``ConsoleSessions``) in Redis, so any gateway replica serves the console
(in memory for tests: :mod:`.memory_console_sessions`). The cookie holds a random token;
Redis keeps only its sha256 with the principal and the session's CSRF token, for
``GATEWAY_CONSOLE_SESSION_SECONDS``."""

from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from redis.asyncio import Redis

from gateway.domain.identity import Principal
from gateway.service_layer.console_sessions import ConsoleSession


def encode_session(principal: Principal, csrf: str) -> str:
    return json.dumps({"account": principal.account, "kind": principal.kind, "via": principal.via,
                       "roles": sorted(principal.roles), "csrf": csrf})


def decode_session(raw: str | bytes) -> ConsoleSession:
    data: dict[str, Any] = json.loads(raw)
    principal = Principal(data["account"], data["kind"], data["via"], frozenset(data["roles"]))
    return ConsoleSession(principal, data["csrf"])


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class RedisConsoleSessions:
    """Key ``<prefix>console-session:<sha256 of the token>``."""

    def __init__(self, redis: Redis, prefix: str, ttl_seconds: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl = ttl_seconds

    def _key(self, token: str) -> str:
        return f"{self._prefix}console-session:{token_digest(token)}"

    async def open(self, principal: Principal) -> tuple[str, ConsoleSession]:
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        await self._redis.set(self._key(token), encode_session(principal, csrf), ex=self._ttl)
        return token, ConsoleSession(principal, csrf)

    async def find(self, token: str) -> ConsoleSession | None:
        raw = await self._redis.get(self._key(token))
        return None if raw is None else decode_session(raw)

    async def close(self, token: str) -> None:
        await self._redis.delete(self._key(token))
