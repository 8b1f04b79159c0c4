"""Read models for SREs and UIs: a conversation with its interactions, an interaction with its
operations, receipts, evidence and span timeline. References only, never stored results."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from trace_recorder.domain.model import Evidence, Interaction, Operation, Receipt, Span
from trace_recorder.service_layer.ports import InteractionRecords, TraceView


def interaction_summary(interaction: Interaction) -> dict[str, Any]:
    return asdict(interaction)


def operation_view(op: Operation, receipts: list[Receipt], evidence: list[Evidence]) -> dict[str, Any]:
    data = asdict(op)
    data.pop("result")
    data["result_stored"] = op.final and not op.result_omitted
    data["execution_receipts"] = [asdict(r) for r in receipts]
    data["evidence"] = [asdict(e) for e in evidence]
    return data


def span_view(span: Span) -> dict[str, Any]:
    data = asdict(span)
    data["duration_ms"] = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
    return data


def interaction_view(records: InteractionRecords) -> dict[str, Any]:
    return {
        **interaction_summary(records.interaction),
        "operations": [
            operation_view(op, records.receipts.get(op.operation_id, []),
                           records.evidence.get(op.operation_id, []))
            for op in records.operations
        ],
        "spans": [span_view(s) for s in records.spans],
    }


def conversation_view(store: TraceView, conversation_id: str) -> dict[str, Any] | None:
    conversation = store.conversation(conversation_id)
    if conversation is None:
        return None
    data = asdict(conversation)
    data.pop("interaction_ids")
    data["interactions"] = [
        {**interaction_summary(i), "operations": store.operation_count(i.interaction_id)}
        for i in store.interactions_of(conversation_id)
    ]
    return data
