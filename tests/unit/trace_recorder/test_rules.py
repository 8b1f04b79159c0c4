"""Pure rules: derived keys and ids, and the status of a finished interaction."""

from __future__ import annotations

from trace_recorder.domain.model import Interaction, Operation
from trace_recorder.domain.rules import (
    evidence_id,
    evidence_status,
    execution_status,
    operation_id_for,
    operation_key,
)


def op(status: str, durability: str = "durable") -> Operation:
    return Operation(
        operation_id="op", operation_key="k", conversation_id="c", interaction_id="i",
        tool_name="t", input_hash="h", receipt_id="r", receipt_status=status,  # type: ignore[arg-type]
        evidence_durability=durability, begun_at="t0",  # type: ignore[arg-type]
    )


def interaction(capture: bool = True) -> Interaction:
    return Interaction(
        interaction_id="i", conversation_id="c", account="a", agent_name="g", question="q",
        capture_enabled=capture, started_at="t0", new_conversation=True,
    )


def test_operation_key_depends_on_interaction_correlation_and_tool() -> None:
    base = operation_key("int_1", "call-1", "tool")
    # pinned: ids are stored and replayed, so the same parts give this key in every process and release
    assert base == "3e39e9bb1e3b0e5e6ff31ac8fbf3fee3e8a091c11a33c4d030e0658197a23c69"
    others = {operation_key("int_2", "call-1", "tool"), operation_key("int_1", "call-2", "tool"),
              operation_key("int_1", "call-1", "x")}
    assert len(others | {base}) == 4
    assert operation_key("a", "b:c", "d") != operation_key("a:b", "c", "d")
    assert operation_id_for(base) == "op_3e39e9bb1e3b0e5e6ff31ac8fbf3fee3"
    assert len({operation_id_for(key) for key in others | {base}}) == 4


def test_evidence_ids_are_deterministic_and_distinct() -> None:
    assert evidence_id("i", "o", "retrieval", 1) == "evd_a934d656ef35a6ac0983915a76154f6cd5ed4774"  # pinned
    ids = {evidence_id("i", "o", t, n) for t in ("retrieval", "execution") for n in (1, 2)}
    assert len(ids) == 4


def test_execution_status() -> None:
    assert execution_status([]) == "none"
    assert execution_status([op("completed"), op("completed")]) == "succeeded"
    assert execution_status([op("completed"), op("failed")]) == "partial"
    assert execution_status([op("completed"), op("pending")]) == "partial"
    assert execution_status([op("failed")]) == "failed"


def test_evidence_status() -> None:
    assert evidence_status(interaction(), [], 0) == "complete"
    assert evidence_status(interaction(), [op("completed"), op("failed")], 0) == "complete"
    assert evidence_status(interaction(), [op("completed")], 1) == "partial"
    assert evidence_status(interaction(), [op("pending", "pending")], 0) == "assembling"
    assert evidence_status(interaction(), [op("pending", "pending")], 1) == "partial"
    assert evidence_status(interaction(), [op("pending", "pending")], 0, lambda _: True) == "failed"
    assert evidence_status(interaction(), [op("completed", "failed")], 0) == "failed"
    assert evidence_status(interaction(), [op("completed", "failed"), op("completed")], 0) == "partial"
    assert evidence_status(interaction(), [], 2) == "partial"  # calls ran, unrecorded
    assert evidence_status(interaction(capture=False), [op("completed")], 0) == "not_captured"
