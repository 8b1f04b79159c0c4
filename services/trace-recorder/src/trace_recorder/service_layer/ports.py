"""Ports of the trace core: where events go, where coordination state lives, and the view."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bkn_common.events import Event, EventRecord
from trace_recorder.domain.model import Conversation, Evidence, Interaction, Operation, Receipt, Seal, Span
from trace_recorder.service_layer.search import TraceQuery


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


class StoreUnavailable(Exception):
    """The trace view's database could not be reached or did not answer (transient)."""


class SchemaTooNew(Exception):
    """The database was migrated by a newer trace-recorder than this one; it is not read."""


Position = tuple[str, int]
"""A consumed partition: (full topic name, partition)."""


class TraceView(Protocol):
    """trace-recorder's view (conversations, interactions, operations, receipts, evidence,
    spans): one port, adapters in memory (tests), SQLite (embedded default) and PostgreSQL.

    Writes are the idempotent merges of :mod:`trace_recorder.service_layer.store`: the live
    service applies what it published (``apply_events``, read-your-writes) and the consumer
    applies each batch of the log together with the offsets it reflects (``apply_batch``, one
    transaction), so a crash never loses or doubles a record and a restart resumes from
    :meth:`positions`.
    Read again after a write to see it (the memory adapter hands out its live records, the SQL
    ones copies). Failures to reach the database raise :class:`StoreUnavailable`.
    """

    def apply(self, record: EventRecord) -> None:
        """Apply one event (a one-event :meth:`apply_events`)."""
        ...

    def apply_events(self, events: Sequence[Event]) -> None:
        """Apply events in order, in one transaction, without moving any offset."""
        ...

    async def apply_batch(self, events: Sequence[Event], positions: Mapping[Position, int]) -> None:
        """Apply events in order and store ``positions`` (the next offset to read per
        partition) in the same transaction."""
        ...

    def positions(self) -> dict[Position, int]:
        """The offsets stored by the last :meth:`apply_batch` of each partition."""
        ...

    def conversation(self, conversation_id: str) -> Conversation | None: ...

    def interaction(self, interaction_id: str) -> Interaction | None: ...

    def operation(self, operation_id: str) -> Operation | None: ...

    def operation_by_key(self, key: str) -> Operation | None: ...

    def receipt(self, receipt_id: str) -> Receipt | None: ...

    def conversation_by_host_key(self, account: str, host_key: str) -> str | None: ...

    def interaction_by_invocation(self, account: str, invocation_id: str) -> Interaction | None: ...

    def active_interaction(self, conversation_id: str) -> Interaction | None:
        """The conversation's newest active interaction (by start time, then id)."""
        ...

    def interactions_of(self, conversation_id: str) -> list[Interaction]:
        """The conversation's interactions by start time, then id."""
        ...

    def operations_of(self, interaction_id: str) -> list[Operation]:
        """By begin time, then id."""
        ...

    def operation_count(self, interaction_id: str) -> int: ...

    def evidence_of(self, operation_id: str) -> list[Evidence]:
        """By type, attempt, id."""
        ...

    def receipts_of(self, operation_id: str) -> list[Receipt]:
        """By execution time, then id."""
        ...

    def spans_of_interaction(self, interaction_id: str) -> list[Span]:
        """Spans naming the interaction or one of its operations, and every span of a trace
        one of its receipts names; by start time, then id."""
        ...

    def interaction_records(self, interaction_id: str) -> InteractionRecords | None:
        """The interaction with everything its view shows, read together."""
        ...

    def search_interactions(self, query: TraceQuery) -> list[Interaction]:
        """The read API's listing (:mod:`trace_recorder.service_layer.search`)."""
        ...

    def search_conversations(self, query: TraceQuery) -> list[Conversation]: ...

    def seals_of(self, interaction_id: str) -> list[Seal]:
        """The interaction's signed chain heads, by number."""
        ...

    def finished_since(self, since: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` interactions no longer active whose ``finished_at`` (ISO) is
        ``since`` or later, as (id, finished_at), oldest first."""
        ...

    def prune_spans(self, ended_before_unix_nano: int, batch_size: int) -> int:
        """Delete at most ``batch_size`` spans that ended before the cut; return how many."""
        ...

    def counts(self) -> dict[str, int]: ...

    def snapshot(self) -> dict[str, Any]:
        """The whole view as JSON-able sections (what ``clctl replay --verify`` digests)."""
        ...

    def digest(self) -> str: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class InteractionRecords:
    """An interaction and the records its view shows (see :meth:`TraceView.interaction_records`)."""

    interaction: Interaction
    operations: list[Operation]
    receipts: dict[str, list[Receipt]]
    evidence: dict[str, list[Evidence]]
    spans: list[Span]
