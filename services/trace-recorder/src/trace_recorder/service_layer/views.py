"""Read models for SREs and UIs: a conversation with its interactions, an interaction with its
operations, receipts, evidence and span timeline. References only, never stored results."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from trace_recorder.domain.model import Interaction, Operation, Span
from trace_recorder.service_layer.store import TraceStore


def interaction_summary(interaction: Interaction) -> dict[str, Any]:
    return asdict(interaction)


def operation_view(store: TraceStore, op: Operation) -> dict[str, Any]:
    data = asdict(op)
    data.pop("result")
    data["result_stored"] = op.final and not op.result_omitted
    data["execution_receipts"] = [asdict(r) for r in store.receipts_of(op.operation_id)]
    data["evidence"] = [asdict(e) for e in store.evidence_of(op.operation_id)]
    return data


def span_view(span: Span) -> dict[str, Any]:
    data = asdict(span)
    data["duration_ms"] = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
    return data


def interaction_view(store: TraceStore, interaction: Interaction) -> dict[str, Any]:
    operations = store.operations_of(interaction.interaction_id)
    return {
        **interaction_summary(interaction),
        "operations": [operation_view(store, op) for op in operations],
        "spans": [span_view(s) for s in store.spans_of_interaction(interaction.interaction_id)],
    }


def conversation_view(store: TraceStore, conversation_id: str) -> dict[str, Any] | None:
    conversation = store.conversations.get(conversation_id)
    if conversation is None:
        return None
    interactions = sorted(
        (store.interactions[i] for i in conversation.interaction_ids if i in store.interactions),
        key=lambda i: (i.started_at, i.interaction_id),
    )
    data = asdict(conversation)
    data.pop("interaction_ids")
    data["interactions"] = [
        {**interaction_summary(i), "operations": store.operation_count(i.interaction_id)}
        for i in interactions
    ]
    return data
