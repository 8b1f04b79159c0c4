"""The ``ConsoleSessions`` port in one process (tests): the same records, kept in a dict."""

from __future__ import annotations

import secrets

from gateway.adapters.console_sessions import decode_session, encode_session, token_digest
from gateway.domain.identity import Principal
from gateway.service_layer.console_sessions import ConsoleSession


class MemoryConsoleSessions:
    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}

    async def open(self, principal: Principal) -> tuple[str, ConsoleSession]:
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(24)
        self.sessions[token_digest(token)] = encode_session(principal, csrf)
        return token, ConsoleSession(principal, csrf)

    async def find(self, token: str) -> ConsoleSession | None:
        raw = self.sessions.get(token_digest(token))
        return None if raw is None else decode_session(raw)

    async def close(self, token: str) -> None:
        self.sessions.pop(token_digest(token), None)
