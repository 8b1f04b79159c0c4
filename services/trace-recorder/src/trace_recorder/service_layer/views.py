"""Read models for SREs and UIs: a conversation with its interactions, an interaction with its
operations, receipts, evidence and span timeline. References only, never stored results."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from trace_recorder.domain.model import Evidence, Interaction, Operation, Receipt, Span
from trace_recorder.service_layer.view_ports import ConversationReads, InteractionRecords


@functools.cache
def _shape(kind: type[Any]) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    names = tuple(f.name for f in fields(kind))
    return names, operator.attrgetter(*names)


def _record(item: Any) -> dict[str, Any]:
    """A record's fields as a dict, in field order: ``dataclasses.asdict`` without its deep
    copy (the view is encoded at once; nested values are shared, never changed)."""
    names, get = _shape(item.__class__)
    return dict(zip(names, get(item), strict=True))


def interaction_summary(interaction: Interaction, operations: list[Operation]) -> dict[str, Any]:
    """The interaction's record; a turn finished ``assembling`` shows what has landed since
    (``complete`` once every operation has its final record; those it counted at its finish
    that are not here yet, their pending record still deferred, are pending too)."""
    data = _record(interaction)
    if interaction.evidence_status == "assembling":
        unlanded = max(0, (interaction.operations_at_finish or 0) - len(operations))
        pending = unlanded + sum(not op.final for op in operations)
        data["evidence_status_at_finish"] = "assembling"
        data["operations_pending"] = pending
        if not pending:
            data["evidence_status"] = "complete"
    return data


def operation_view(op: Operation, receipts: list[Receipt], evidence: list[Evidence]) -> dict[str, Any]:
    data = _record(op)
    data.pop("result")
    data["result_stored"] = op.final and not op.result_omitted
    data["execution_receipts"] = [receipt_view(r) for r in receipts]
    data["evidence"] = [_record(e) for e in evidence]
    return data


def receipt_view(receipt: Receipt) -> dict[str, Any]:
    """The receipt's fields, and from the receipt as published its hashes and who signed it
    (``signed``: it carries a signature; whether it holds is for ``clctl trace verify``)."""
    data = _record(receipt)
    published = data.pop("record") or {}
    data["signed"] = bool(published.get("signature"))
    for name in ("key_id", "arguments_hash", "response_hash"):
        data[name] = published.get(name)
    return data


def span_view(span: Span) -> dict[str, Any]:
    data = _record(span)
    data["duration_ms"] = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
    return data


def interaction_view(records: InteractionRecords) -> dict[str, Any]:
    return {
        **interaction_summary(records.interaction, records.operations),
        "operations": [
            operation_view(op, records.receipts.get(op.operation_id, []),
                           records.evidence.get(op.operation_id, []))
            for op in records.operations
        ],
        "spans": [span_view(s) for s in records.spans],
    }


def conversation_view(store: ConversationReads, conversation_id: str) -> dict[str, Any] | None:
    conversation = store.conversation(conversation_id)
    if conversation is None:
        return None
    data = _record(conversation)
    data.pop("interaction_ids")
    data["interactions"] = [
        {**interaction_summary(i, _assembling(store, i)),
         "operations": store.operation_count(i.interaction_id)}
        for i in store.interactions_of(conversation_id)
    ]
    return data


def _assembling(store: ConversationReads, interaction: Interaction) -> list[Operation]:
    """The operations a summary needs: only those of a turn finished ``assembling``."""
    if interaction.evidence_status != "assembling":
        return []
    return store.operations_of(interaction.interaction_id)
