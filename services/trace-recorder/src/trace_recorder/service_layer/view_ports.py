"""trace-recorder's view as ports: conversations, interactions, operations, receipts,
evidence, spans and seals. Adapters: in memory (:class:`~trace_recorder.service_layer.store.TraceStore`,
tests), SQLite (the embedded default) and PostgreSQL (``adapters/``).

Each caller depends on the narrow port it uses:

| port | methods | used by |
|---|---|---|
| :class:`LogProjection` | apply, apply_batch, positions | the projection runner (``sealing.NotingProjection``) |
| :class:`EventApplier` | apply_events | :class:`~trace_recorder.service_layer.recording.Core` (read-your-writes) |
| :class:`LifecycleReads` | the lifecycle and operation handlers' lookups | interactions, operations, settling |
| :class:`SealingReads` | records, seals, finished_since | sealing (:class:`SealReads`: the bundle) |
| :class:`StateReads` | a conversation and an interaction with its records | the internal state API |
| :class:`OperatorReads` | searches and single records | the operator read API |
| :class:`SpanPruning` | prune_spans | span retention |
| :class:`ReplayTarget` | apply_events, snapshot, close | ``clctl replay`` (``rebuild.py``) |

:class:`TraceView` is all of them (what ``bootstrap.open_view`` returns and what the one
contract suite, ``tests/support/trace_view_contract.py``, runs against every adapter).

Writes are the idempotent merges of :mod:`trace_recorder.service_layer.store`: the live
service applies what it published (``apply_events``, read-your-writes) and the consumer
applies each batch of the log together with the offsets it reflects (``apply_batch``, one
transaction), so a crash never loses or doubles a record and a restart resumes from
``positions``. Read again after a write to see it (the memory adapter hands out its live
records, the SQL ones copies). Failures to reach the database raise :class:`StoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bkn_common.contracts.events import Event, EventRecord
from trace_recorder.domain.model import Conversation, Evidence, Interaction, Operation, Receipt, Seal, Span
from trace_recorder.service_layer.search import TraceQuery


class StoreUnavailable(Exception):
    """The trace view's database could not be reached or did not answer (transient)."""


class SchemaTooNew(Exception):
    """The database was migrated by a newer trace-recorder than this one; it is not read."""


Position = tuple[str, int]
"""A consumed partition: (full topic name, partition)."""


@dataclass(frozen=True)
class InteractionRecords:
    """An interaction and the records its view shows (see :meth:`RecordsReads.interaction_records`)."""

    interaction: Interaction
    operations: list[Operation]
    receipts: dict[str, list[Receipt]]
    evidence: dict[str, list[Evidence]]
    spans: list[Span]


class LogProjection(Protocol):
    """The view as the projection runner feeds it from the log."""

    def apply(self, record: EventRecord) -> None:
        """Apply one event (a one-event ``apply_events``)."""
        ...

    async def apply_batch(self, events: Sequence[Event], positions: Mapping[Position, int]) -> None:
        """Apply events in order and store ``positions`` (the next offset to read per
        partition) in the same transaction."""
        ...

    def positions(self) -> dict[Position, int]:
        """The offsets stored by the last :meth:`apply_batch` of each partition."""
        ...


class EventApplier(Protocol):
    def apply_events(self, events: Sequence[Event]) -> None:
        """Apply events in order, in one transaction, without moving any offset."""
        ...


class LifecycleReads(Protocol):
    """What the lifecycle and operation handlers look up."""

    def conversation(self, conversation_id: str) -> Conversation | None: ...

    def interaction(self, interaction_id: str) -> Interaction | None: ...

    def operation(self, operation_id: str) -> Operation | None: ...

    def operation_by_key(self, key: str) -> Operation | None: ...

    def conversation_by_host_key(self, account: str, host_key: str) -> str | None: ...

    def interaction_by_invocation(self, account: str, invocation_id: str) -> Interaction | None: ...

    def active_interaction(self, conversation_id: str) -> Interaction | None:
        """The conversation's newest active interaction (by start time, then id)."""
        ...

    def operations_of(self, interaction_id: str) -> list[Operation]:
        """By begin time, then id."""
        ...

    def operation_count(self, interaction_id: str) -> int: ...


class RecordsReads(Protocol):
    def interaction_records(self, interaction_id: str) -> InteractionRecords | None:
        """The interaction with everything its view shows, read together."""
        ...


class SealReads(RecordsReads, Protocol):
    """An interaction's records and its seals (the export bundle)."""

    def seals_of(self, interaction_id: str) -> list[Seal]:
        """The interaction's signed chain heads, by number."""
        ...


class SealingReads(SealReads, Protocol):
    """What the sealer reads: records, seals, and what finished lately."""

    def finished_since(self, since: str, limit: int) -> list[tuple[str, str]]:
        """Up to ``limit`` interactions no longer active whose ``finished_at`` (ISO) is
        ``since`` or later, as (id, finished_at), oldest first."""
        ...


class RecorderStore(EventApplier, LifecycleReads, SealingReads, Protocol):
    """The view as :class:`~trace_recorder.service_layer.recording.Core` holds it for the
    handlers (lifecycle, operations, settling, deferred records, sealing)."""


class ConversationReads(Protocol):
    """A conversation with its interactions and their operations (``views.conversation_view``)."""

    def conversation(self, conversation_id: str) -> Conversation | None: ...

    def interactions_of(self, conversation_id: str) -> list[Interaction]:
        """The conversation's interactions by start time, then id."""
        ...

    def operations_of(self, interaction_id: str) -> list[Operation]: ...

    def operation_count(self, interaction_id: str) -> int: ...


class StateReads(ConversationReads, RecordsReads, Protocol):
    """The internal state API: a conversation, an interaction with its records."""


class OperatorReads(Protocol):
    """The operator read API: searches, and records one at a time."""

    def search_interactions(self, query: TraceQuery) -> list[Interaction]:
        """The read API's listing (:mod:`trace_recorder.service_layer.search`)."""
        ...

    def search_conversations(self, query: TraceQuery) -> list[Conversation]: ...

    def interactions_of(self, conversation_id: str) -> list[Interaction]: ...

    def operation_count(self, interaction_id: str) -> int: ...

    def interaction(self, interaction_id: str) -> Interaction | None: ...

    def operation(self, operation_id: str) -> Operation | None: ...

    def receipt(self, receipt_id: str) -> Receipt | None: ...

    def receipts_of(self, operation_id: str) -> list[Receipt]:
        """By execution time, then id."""
        ...

    def evidence_of(self, operation_id: str) -> list[Evidence]:
        """By type, attempt, id."""
        ...


class SpanPruning(Protocol):
    def prune_spans(self, ended_before_unix_nano: int, batch_size: int) -> int:
        """Delete at most ``batch_size`` spans that ended before the cut; return how many."""
        ...


class ReplayTarget(EventApplier, Protocol):
    """A fresh view a replay folds the log into, then digests and closes."""

    def snapshot(self) -> dict[str, Any]:
        """The whole view as JSON-able sections (what ``clctl replay --verify`` digests)."""
        ...

    def close(self) -> None: ...


class TraceView(LogProjection, RecorderStore, StateReads, OperatorReads, SpanPruning, ReplayTarget,
                Protocol):
    """Every port above on one store: what an adapter implements."""

    def spans_of_interaction(self, interaction_id: str) -> list[Span]:
        """Spans naming the interaction or one of its operations, and every span of a trace
        one of its receipts names; by start time, then id."""
        ...

    def counts(self) -> dict[str, int]: ...

    def digest(self) -> str: ...
