"""Ports of the trace core: where events go and where coordination state lives."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from bkn_common.events import Event


class EventSink(Protocol):
    """Publishes events durably; returns once the broker acknowledged (acks=all)."""

    async def publish(self, event: Event) -> None: ...

    async def publish_many(self, events: Sequence[Event]) -> None: ...


class CoordinationUnavailable(Exception):
    """The coordination store (Redis) could not be reached or answered an error."""


class Coordination(Protocol):
    """Short-lived coordination state (Redis): leases, idempotency records, locks.

    Keys are relative; the adapter adds its prefix. Failures raise
    :class:`CoordinationUnavailable`.
    """

    async def ping(self) -> bool: ...

    def lock(self, name: str, wait_seconds: float) -> AbstractAsyncContextManager[None]:
        """Hold a mutual-exclusion lock; :class:`CoordinationUnavailable` if not had in time."""
        ...

    async def get(self, key: str) -> str | None: ...

    async def put(
        self, key: str, value: str, *, ttl: int | None = None, only_if_absent: bool = False
    ) -> bool:
        """Set ``key``; with ``only_if_absent`` only when it does not exist. True if set."""
        ...

    async def claim(self, key: str, holder: str, ttl: int) -> str | None:
        """Atomically take or refresh a lease: when ``key`` is free or held by ``holder``, set
        it to ``holder`` for ``ttl`` seconds and return None; otherwise return the holder."""
        ...

    async def release(self, key: str, holder: str) -> None:
        """Delete ``key`` if (and only if) it is held by ``holder``."""
        ...

    async def delete(self, key: str) -> None: ...

    async def incr(self, key: str, ttl: int) -> int:
        """Increment a counter (created with ``ttl`` seconds) and return its new value."""
        ...

    async def decr(self, key: str) -> None: ...
