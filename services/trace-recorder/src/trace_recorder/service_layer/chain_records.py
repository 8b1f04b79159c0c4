"""An interaction's records in the order its hash chain takes them
(``bkn_common.provenance.chain``): the start, then per operation (by begin time) its begin,
its completion once final, its receipts (by execution time), its evidence (by type, attempt,
id), then the finish once the interaction is no longer active. A record that arrives after a
seal is appended by the next seal in this same order among the new ones."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from trace_recorder.domain.model import Interaction, Operation, Receipt
from trace_recorder.service_layer.view_ports import InteractionRecords

Record = tuple[str, str, dict[str, Any]]  # kind, ref, data

_STARTED = ("interaction_id", "conversation_id", "account", "agent_name", "question",
            "capture_enabled", "started_at", "new_conversation", "invocation_id", "input_hash")
_FINISHED = ("interaction_id", "status", "outcome", "answer", "reason", "execution_status",
             "evidence_status", "unrecorded_calls", "operations_at_finish", "finished_at")
_BEGUN = ("operation_id", "operation_key", "conversation_id", "interaction_id", "tool_name",
          "input_hash", "receipt_id", "begun_at", "correlation")
_COMPLETED = ("operation_id", "receipt_status", "evidence_durability", "completed_at", "result",
              "result_omitted", "execution_receipt_id")


def _pick(item: Interaction | Operation, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(item, name) for name in names}


def receipt_data(receipt: Receipt) -> dict[str, Any]:
    """The receipt as tool-executor published it (signature included) when the view kept it,
    else the fields the view has (an unsigned receipt of before)."""
    if receipt.record is not None:
        return dict(receipt.record)
    data = asdict(receipt)
    data.pop("record")
    return data


def chain_records(records: InteractionRecords) -> list[Record]:
    interaction = records.interaction
    found: list[Record] = [("interaction.started", interaction.interaction_id, _pick(interaction, _STARTED))]
    for op in records.operations:
        found.append(("operation.begun", op.operation_id, _pick(op, _BEGUN)))
        if op.final:
            found.append(("operation.completed", op.operation_id, _pick(op, _COMPLETED)))
        for receipt in records.receipts.get(op.operation_id, []):
            found.append(("execution.receipt", receipt.receipt_id, receipt_data(receipt)))
        for evidence in records.evidence.get(op.operation_id, []):
            found.append(("evidence", evidence.evidence_id, asdict(evidence)))
    if not interaction.active:
        found.append(("interaction.finished", interaction.interaction_id, _pick(interaction, _FINISHED)))
    return found
