"""Ports of the trace core: where events go and where coordination state lives (the view's
ports are in :mod:`trace_recorder.service_layer.view_ports`)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Literal, Protocol

from bkn_common.contracts.events import Event


class EventSink(Protocol):
    """Publishes events durably; returns once the broker acknowledged (acks=all)."""

    async def publish(self, event: Event) -> None: ...

    async def publish_many(self, events: Sequence[Event]) -> None: ...


class CoordinationUnavailable(Exception):
    """The coordination store (Redis) could not be reached or answered an error."""


@dataclass(frozen=True)
class OperationClaim:
    """What :meth:`Coordination.claim_operation` found and did.

    ``status``:

    * ``new`` — the operation was free: its key is now marked in flight, the lease is taken
      or refreshed and ``count`` is the operation counter's new value;
    * ``limit`` — it was free but one operation more is over the limit; nothing is marked and
      the counter is as it was;
    * ``superseded`` — the lease is held by another interaction (``holder``); nothing is
      marked or counted;
    * ``conflict`` — it exists (in the store or in flight) with another input hash
      (``recorded_hash``); the lease is not touched;
    * ``existing`` — it exists with this input hash (``recorded_hash``); the lease is taken or
      refreshed.
    """

    status: Literal["new", "limit", "superseded", "conflict", "existing"]
    recorded_hash: str | None = None
    holder: str | None = None
    count: int | None = None


@dataclass(frozen=True)
class Deferred:
    """A record that waits in the coordination store to be published later, unless it is
    forgotten first: ``record`` under ``key``, ``member`` of the sorted set ``index`` scored by
    when it falls due (the store's clock plus ``delay_seconds``). ``ttl`` bounds how long it
    waits unpublished (a safety net; a sweep takes it long before)."""

    index: str
    key: str
    member: str
    record: str
    delay_seconds: float
    ttl: int


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

    async def claim_operation(
        self, key: str, input_hash: str, *, in_flight_ttl: int, lease_key: str,
        lease_holder: str, lease_ttl: int, counter_key: str, counter_ttl: int, limit: int,
        stored_count: int, stored_hash: str | None, deferred: Deferred | None = None,
    ) -> OperationClaim:
        """Claim an operation for ``begin``, atomically (one round trip on Redis).

        ``stored_hash`` is the input hash of the operation when the store holds it (None when
        it does not), ``stored_count`` how many operations the store holds for the
        interaction. Atomically:

        * when the store does not hold it and ``key`` is absent (a new operation): if
          ``stored_count >= limit`` → ``limit``; else take or refresh the lease ``lease_key``
          for ``lease_holder`` as :meth:`claim` does → ``superseded`` when another holds it;
          else increment ``counter_key`` as :meth:`incr` does (``counter_ttl``) and, if
          ``max(count, stored_count + 1) > limit``, decrement it again → ``limit`` (the lease
          stays refreshed); else set ``key`` to ``input_hash`` for ``in_flight_ttl`` seconds
          → ``new``.
        * otherwise (it exists): when the store holds it, set ``key`` as above if absent (the
          in-flight marker is re-armed) and take ``stored_hash`` as the recorded hash, else
          ``key``'s value; a recorded hash other than ``input_hash`` → ``conflict``; else take
          or refresh the lease → ``superseded`` or ``existing``.

        With ``deferred``, a ``new`` claim also stores that record (see :meth:`take_due`);
        no other outcome does.
        """
        ...

    async def take_due(
        self, index: str, key_prefix: str, *, lease_seconds: int, limit: int,
        everything: bool = False,
    ) -> list[tuple[str, str]]:
        """Take up to ``limit`` deferred records of ``index`` that fell due (``everything``:
        due or not), as ``(member, record)``; the record of ``member`` is under
        ``key_prefix + member``. Each one taken is due again ``lease_seconds`` later, so a
        taker that dies before :meth:`forget` leaves it to the next one. A member whose record
        expired leaves the index."""
        ...

    async def forget(self, index: str, key: str, member: str) -> None:
        """Drop a deferred record (published, or no longer needed)."""
        ...
