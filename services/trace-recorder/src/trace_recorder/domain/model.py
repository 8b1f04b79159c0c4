"""The trace core's records: conversation → interaction → operation → receipt → evidence.

Plain mutable dataclasses owned by the store. Every field is derived from event payloads
only (never from arrival time or envelope ids), so a store rebuilt from the log equals the
live one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

InteractionStatus = Literal["active", "finished", "abandoned"]
ReceiptStatus = Literal["pending", "completed", "failed"]
Durability = Literal["pending", "durable", "failed"]


@dataclass(slots=True)
class Conversation:
    conversation_id: str
    account: str
    agent_name: str
    created_at: str
    host_conversation_key: str | None = None
    interaction_ids: set[str] = field(default_factory=set)


@dataclass(slots=True)
class Interaction:
    interaction_id: str
    conversation_id: str
    account: str
    agent_name: str
    question: str
    capture_enabled: bool
    started_at: str
    new_conversation: bool
    invocation_id: str | None = None
    input_hash: str | None = None
    status: InteractionStatus = "active"
    outcome: str | None = None
    answer: str | None = None
    reason: str | None = None
    execution_status: str | None = None
    evidence_status: str | None = None
    unrecorded_calls: int = 0
    operations_at_finish: int | None = None
    finished_at: str | None = None

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(slots=True)
class Operation:
    operation_id: str
    operation_key: str
    conversation_id: str
    interaction_id: str
    tool_name: str
    input_hash: str
    receipt_id: str
    receipt_status: ReceiptStatus
    evidence_durability: Durability
    begun_at: str
    correlation: str | None = None
    completed_at: str | None = None
    result: Any = None
    result_omitted: bool = False
    execution_receipt_id: str | None = None

    @property
    def final(self) -> bool:
        return self.receipt_status != "pending"


@dataclass(slots=True)
class Evidence:
    evidence_id: str
    operation_id: str
    interaction_id: str
    evidence_type: str
    attempt: int
    attributes: dict[str, Any]
    source_refs: list[str]
    recorded_at: str
    origin: Literal["trace", "receipt"] = "trace"


@dataclass(slots=True)
class Receipt:
    """An execution receipt of tool-executor, as the trace core keeps it."""

    receipt_id: str
    operation_id: str | None
    conversation_id: str | None
    interaction_id: str | None
    kn_id: str
    tool_id: str
    owner_id: str
    capability_type: str
    outcome: str
    status_code: int | None
    latency_ms: float
    executed_at: str
    trace_id: str | None
    outcome_known: bool = True  # False: recovered from tool-executor's journal (see the event)
    # the receipt as tool-executor published it, every field and its signature (None: folded
    # before trace-recorder kept it); what an export bundle carries and a verifier checks
    record: dict[str, Any] | None = None


@dataclass(slots=True)
class Span:
    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    service_name: str
    kind: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    status: str
    attributes: dict[str, Any]


@dataclass(slots=True)
class Seal:
    """One signed head of an interaction's hash chain (event ``trace.interaction.sealed``)."""

    interaction_id: str
    seq: int
    conversation_id: str
    length: int
    entries: list[dict[str, Any]]  # what this seal appended: kind, ref, fields, record_hash
    head: str
    sealed_at: str
    key_id: str
    signature: str
