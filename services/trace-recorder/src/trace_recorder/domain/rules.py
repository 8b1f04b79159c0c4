"""Pure rules of the trace core: derived keys and ids, and the status of a finished turn."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from trace_recorder.domain.model import Interaction, Operation

OUTCOMES_NEEDING_REASON = ("failed", "cancelled", "handed_off")


def canonical_hash(value: Any) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, no whitespace)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _hash_parts(*parts: object) -> str:
    """sha256 over length-prefixed parts: unambiguous (``a|b:c`` ≠ ``a:b|c``) and cheap."""
    texts = [str(p) for p in parts]
    return hashlib.sha256("".join(f"{len(t)}:{t};" for t in texts).encode()).hexdigest()


def operation_key(interaction_id: str, correlation: str, tool_name: str) -> str:
    """The operation key: one per (interaction, client invocation or request, tool)."""
    return _hash_parts(interaction_id, correlation, tool_name)


def operation_id_for(key: str) -> str:
    """Operation ids follow from the key, so a retried begin can never fork a second one."""
    return "op_" + key[:32]


def receipt_id_for(key: str) -> str:
    return "rcpt_" + _hash_parts("receipt", key)[:32]


def evidence_id(interaction_id: str, operation_id: str, evidence_type: str, attempt: object) -> str:
    """Deterministic evidence id: redelivery or a retried completion never duplicates it."""
    return "evd_" + _hash_parts(interaction_id, operation_id, evidence_type, attempt)[:40]


def new_conversation_id() -> str:
    return "conv_" + uuid.uuid4().hex


def new_interaction_id() -> str:
    return "int_" + uuid.uuid4().hex


def execution_status(operations: Iterable[Operation], unlanded: int = 0) -> str:
    """``none`` without operations, ``succeeded`` when every receipt completed, ``failed`` when
    every one failed, ``partial`` otherwise (a mix, or receipts still pending). ``unlanded``
    operations were begun but are not in the store yet: pending."""
    statuses = [op.receipt_status for op in operations] + ["pending"] * unlanded
    if not statuses:
        return "none"
    if all(s == "completed" for s in statuses):
        return "succeeded"
    if all(s == "failed" for s in statuses):
        return "failed"
    return "partial"


def abandoned(op: Operation, now: datetime, pending_timeout_seconds: float) -> bool:
    """A pending operation nobody completed within the pending timeout (its caller died)."""
    if op.final:
        return False
    age = now - datetime.fromisoformat(op.begun_at)
    return age.total_seconds() > pending_timeout_seconds


def evidence_status(
    interaction: Interaction, operations: Iterable[Operation], unrecorded_calls: int,
    lost: Callable[[Operation], bool] = lambda op: False, unlanded: int = 0,
) -> str:
    """The evidence of a finished turn.

    ``not_captured`` when capture was off; ``complete`` when every operation's evidence is
    durable and no call went unrecorded; ``assembling`` when nothing is lost but some
    operations are still completing (their records land later); otherwise evidence is lost for
    good (a call ran unrecorded, a completion's evidence failed, or ``lost`` says a pending
    operation was abandoned): ``failed`` when every operation's evidence was lost, else
    ``partial``. ``unlanded`` operations were begun but are not in the store yet: pending.
    """
    if not interaction.capture_enabled:
        return "not_captured"
    landed = missing = 0
    pending = unlanded
    for op in operations:
        if op.final:
            if op.evidence_durability == "durable":
                landed += 1
            else:
                missing += 1
        elif lost(op):
            missing += 1
        else:
            pending += 1
    if not missing and not unrecorded_calls:
        return "assembling" if pending else "complete"
    return "failed" if missing and not landed and not pending else "partial"
