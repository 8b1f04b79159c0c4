"""Execution events: receipts of dispatched tool calls, and asynchronous action runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from bkn_common.contracts.event_types.base import Event, register_event
from bkn_common.contracts.event_types.network import Frozen

Outcome = Literal["succeeded", "tool_error", "upstream_error", "timeout", "sandbox_error"]


@register_event
class ExecutionReceiptRecorded(Event):
    """One dispatched execution, written by tool-executor after the target answered."""

    type = "execution.receipt.recorded"
    receipt_id: str
    operation_id: str | None = None
    conversation_id: str | None = None
    interaction_id: str | None = None
    kn_id: str
    owner_id: str
    tool_id: str
    capability_type: str
    caller: str
    proxy_id: str
    arguments_hash: str
    ignored_transport_fields: tuple[str, ...] = ()
    outcome: Outcome
    status_code: int | None = None
    latency_ms: float
    executed_at: datetime
    trace_id: str | None = None
    # False on a receipt recovered from tool-executor's journal: the executor stopped after
    # dispatching and before it saw the answer, so the target may or may not have acted
    # (outcome "upstream_error", no status, latency 0). A receipt with a known outcome for
    # the same receipt_id supersedes it.
    outcome_known: bool = True
    # Provenance (bkn_common.provenance.receipts; all optional: receipts of before are
    # "unsigned", never valid). response_hash: sha256 of the exact bytes the tool answered
    # (an OpenAPI tool's HTTP body; the canonical JSON of an MCP or function tool's result);
    # signature: Ed25519 by key_id over the canonical JSON of every other field.
    response_hash: str | None = None
    key_id: str | None = None
    signature: str | None = None


class ActionTarget(Frozen):
    ot_id: str
    identity: dict[str, Any]


@register_event
class ActionExecutionRequested(Event):
    type = "action.execution.requested"
    execution_id: str
    kn_id: str
    action_type_id: str
    caller: str
    targets: tuple[ActionTarget, ...]
    parameters: dict[str, Any] = Field(default_factory=dict)
    requested_at: datetime


class ActionTargetResult(Frozen):
    identity: dict[str, Any]
    success: bool
    result: Any = None
    error: str | None = None


@register_event
class ActionExecutionUpdated(Event):
    type = "action.execution.updated"
    execution_id: str
    kn_id: str
    action_type_id: str
    status: Literal["running", "completed", "failed"]
    results: tuple[ActionTargetResult, ...] = ()
    success_count: int = 0
    failed_count: int = 0
    updated_at: datetime
