"""The ``SessionStore`` port in one process (tests)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from gateway.adapters.sessions import SESSION_TTL_SECONDS, session_record


class MemorySessionStore:
    """One process's sessions (tests): the same expiry on a monotonic clock."""

    def __init__(self, ttl_seconds: float = SESSION_TTL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl_seconds
        self._clock = clock
        self._sessions: dict[str, tuple[dict[str, str | None], float]] = {}

    async def create(self, account: str, endpoint: str, protocol_version: str | None) -> str:
        session_id = secrets.token_hex(16)
        self._sessions[session_id] = (session_record(account, endpoint, protocol_version), self._clock() + self._ttl)
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
