"""Trace core events: the provenance record (conversation, interaction, operation, evidence)
and exported OpenTelemetry spans."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts.event_types.base import Event, register_event


class OperationEvidence(BaseModel):
    """One evidence item carried by an operation's final record (see ``OperationRecorded``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence_id: str
    evidence_type: Literal["retrieval", "execution"]
    attempt: int = 1
    attributes: dict[str, Any] = Field(default_factory=dict)
    source_refs: tuple[str, ...] = ()


@register_event
class InteractionStarted(Event):
    type = "trace.interaction.started"
    conversation_id: str
    interaction_id: str
    new_conversation: bool
    account: str
    agent_name: str
    question: str
    host_conversation_key: str | None = None
    capture_enabled: bool = True
    started_at: datetime
    invocation_id: str | None = None
    """The caller's client invocation id, when one was given (idempotent start)."""
    input_hash: str | None = None
    """sha256 of the canonical start input, to tell a retry from a conflicting reuse."""


@register_event
class InteractionFinished(Event):
    type = "trace.interaction.finished"
    conversation_id: str
    interaction_id: str
    outcome: Literal["completed", "failed", "cancelled", "handed_off", "abandoned"]
    answer: str | None = None
    reason: str | None = None
    execution_status: str
    evidence_status: str
    finished_at: datetime
    unrecorded_calls: int = 0
    """Managed calls the gateway observed running unrecorded (trace core outage gaps)."""
    operations: int | None = None
    """How many operations the interaction had when it finished."""


@register_event
class OperationRecorded(Event):
    type = "trace.operation.recorded"
    operation_id: str
    operation_key: str
    conversation_id: str
    interaction_id: str
    tool_name: str
    input_hash: str
    receipt_id: str
    receipt_status: Literal["pending", "completed", "failed"]
    evidence_durability: Literal["pending", "durable", "failed"]
    recorded_at: datetime
    correlation: str | None = None
    """The client invocation id or request id the operation key was derived from."""
    result: Any = None
    """The final result, stored for replay of a retried call (absent while pending)."""
    result_omitted: bool = False
    """True when the result exceeded the storage cap and was not kept."""
    execution_receipt_id: str | None = None
    """The tool-executor receipt of this operation, when it dispatched an execution."""
    begun_at: datetime | None = None
    """When the operation began (its pending record's ``recorded_at``); on a final record, so
    that the final record alone describes the operation (since issue 16 the pending record
    is only published while an operation stays pending; absent on older records)."""
    evidence: tuple[OperationEvidence, ...] = ()
    """The operation's evidence, on its final record (since issue 16; before, each item was
    its own ``trace.evidence.recorded`` record, which readers still fold). Each item folds
    exactly as that record would, with the final record's ``recorded_at``."""


@register_event
class EvidenceRecorded(Event):
    type = "trace.evidence.recorded"
    evidence_id: str
    operation_id: str
    interaction_id: str
    evidence_type: Literal["retrieval", "execution"]
    attempt: int = 1
    attributes: dict[str, Any] = Field(default_factory=dict)
    source_refs: tuple[str, ...] = ()
    recorded_at: datetime


@register_event
class SpanExported(Event):
    """A finished OpenTelemetry span, shipped through Kafka to trace-recorder."""

    type = "trace.span.exported"
    trace_id: str
    span_id: str
    parent_span_id: str | None = None
    name: str
    service_name: str
    kind: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    status: str
    attributes: dict[str, Any] = Field(default_factory=dict)


@register_event
class SpansExported(Event):
    """The spans of one export batch of one service, in one record (since issue 16; before,
    every span was its own ``trace.span.exported`` record, which readers still fold). Each
    span keeps its own fields; folding the batch is folding each span."""

    type = "trace.spans.exported"
    spans: tuple[SpanExported, ...]


class SealedEntry(BaseModel):
    """One link of an interaction's hash chain (bkn_common.provenance.chain): which record,
    the hash of each of its fields, and the record's hash over them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    ref: str
    fields: dict[str, str]
    record_hash: str


@register_event
class InteractionSealed(Event):
    """trace-recorder sealed a finished interaction: ``entries`` extend its hash chain (from
    ``length - len(entries)`` to ``length``), ``head`` is the chain's hash after them, signed
    with trace-recorder's seal key. ``seq`` counts the seals of the interaction (1: at its
    finish; each later one covers records that arrived after the one before)."""

    type = "trace.interaction.sealed"
    conversation_id: str
    interaction_id: str
    seq: int
    length: int
    entries: tuple[SealedEntry, ...]
    head: str
    sealed_at: datetime
    key_id: str
    signature: str
