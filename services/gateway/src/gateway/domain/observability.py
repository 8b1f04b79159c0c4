"""What the operator read API shapes from trace-recorder's views: who may read what, the span
tree of an interaction, and its evidence chain (interaction → operation → receipt → evidence)."""

from __future__ import annotations

from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.identity import Principal

PROJECTION_SERVICES: tuple[str, ...] = (
    "capability-index", "tool-executor", "trace-recorder", "ontology-query", "knowledge-base")
"""Every service that folds topics into a store (``bkn_common.contracts.topics.CONSUMER_TOPICS``)."""


def may_read(principal: Principal, owner: str | None) -> bool:
    """An operator reads every account's records; an account only its own."""
    return principal.operator or (owner is not None and owner == principal.account)


def require_read(principal: Principal, owner: str | None, what: str) -> None:
    if not may_read(principal, owner):
        raise ApiError(ErrorCode.PERMISSION_DENIED, 403, params={
            "reason": f"{what} belongs to another account; only an operator reads every account's traces"},
            details={"required_role": "operator"})


def require_operator(principal: Principal, what: str) -> None:
    if not principal.operator:
        raise ApiError(ErrorCode.PERMISSION_DENIED, 403, params={
            "reason": f"{what} is for operators (an account with the operator role)"},
            details={"required_role": "operator"})


def span_tree(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Spans nested under their parents (``children``), roots and siblings by start time; a span
    whose parent is not among them is a root."""
    nodes = {(s["trace_id"], s["span_id"]): {**s, "children": []} for s in spans}
    roots: list[dict[str, Any]] = []
    for node in sorted(nodes.values(), key=lambda s: (s["start_time_unix_nano"], s["span_id"])):
        parent = nodes.get((node["trace_id"], node.get("parent_span_id") or ""))
        (parent["children"] if parent is not None and parent is not node else roots).append(node)
    return roots


def evidence_chain(interaction: dict[str, Any]) -> dict[str, Any]:
    """The interaction's chain as upstream names it: each operation with its receipt (the trace
    receipt id and status, and the execution receipts that settled it) and its evidence."""
    return {
        "interaction_id": interaction["interaction_id"],
        "conversation_id": interaction["conversation_id"],
        "execution_status": interaction.get("execution_status"),
        "evidence_status": interaction.get("evidence_status"),
        "operations": [{
            "operation_id": op["operation_id"],
            "tool_name": op["tool_name"],
            "begun_at": op["begun_at"],
            "completed_at": op.get("completed_at"),
            "receipt": {
                "receipt_id": op["receipt_id"],
                "receipt_status": op["receipt_status"],
                "evidence_durability": op["evidence_durability"],
                "execution_receipts": op.get("execution_receipts", []),
            },
            "evidence": op.get("evidence", []),
        } for op in interaction.get("operations", [])],
    }
