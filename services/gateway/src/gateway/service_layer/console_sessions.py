"""The console's logins (the ``ConsoleSessions`` port): a session holds the principal that
logged in and the CSRF token of its forms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gateway.domain.identity import Principal


@dataclass(frozen=True)
class ConsoleSession:
    principal: Principal
    csrf: str


class ConsoleSessions(Protocol):
    async def open(self, principal: Principal) -> tuple[str, ConsoleSession]:
        """A new session: the token for the cookie (only its hash is kept) and the session."""
        ...

    async def find(self, token: str) -> ConsoleSession | None: ...

    async def close(self, token: str) -> None: ...
