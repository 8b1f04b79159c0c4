"""Operations: begin (operation key, idempotency, lease, limit) and complete (receipt and
evidence, with deterministic evidence ids)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bkn_common import events as ev
from bkn_common.errors import ApiError, ErrorCode
from trace_recorder.domain.errors import TraceCode
from trace_recorder.domain.model import Interaction, Operation
from trace_recorder.domain.rules import evidence_id, operation_id_for, operation_key, receipt_id_for
from trace_recorder.service_layer.core import Core, Keys, PublishFailed


@dataclass(frozen=True)
class BeginCommand:
    account: str
    conversation_id: str
    interaction_id: str
    tool_name: str
    input_hash: str
    correlation: str


@dataclass(frozen=True)
class EvidenceItem:
    evidence_type: Literal["retrieval", "execution"]
    attributes: dict[str, Any] = field(default_factory=dict)
    source_refs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CompleteCommand:
    account: str
    operation_id: str
    receipt_status: Literal["completed", "failed"]
    result: Any = None
    evidence: tuple[EvidenceItem, ...] = ()
    execution_receipt_id: str | None = None


def _replay(op: Operation) -> dict[str, Any]:
    return {
        "status": "replay", "operation_id": op.operation_id, "receipt_id": op.receipt_id,
        "receipt_status": op.receipt_status, "stored_result": op.result,
        "result_omitted": op.result_omitted,
    }


def _begun(op: Operation) -> dict[str, Any]:
    return {"status": "new", "operation_id": op.operation_id, "receipt_id": op.receipt_id,
            "receipt_status": "pending", "evidence_durability": "pending"}


def _completed(op: Operation) -> dict[str, Any]:
    return {
        "operation_id": op.operation_id, "receipt_id": op.receipt_id,
        "receipt_status": op.receipt_status, "evidence_durability": op.evidence_durability,
    }


class Operations:
    """``begin`` and ``complete`` of operations; see the internal API in the README."""

    def __init__(self, core: Core) -> None:
        self._core = core

    # ------------------------------------------------------------------ begin

    async def begin(self, cmd: BeginCommand) -> dict[str, Any]:
        core = self._core
        interaction = core.store.interactions.get(cmd.interaction_id)
        if (interaction is None or interaction.account != cmd.account
                or interaction.conversation_id != cmd.conversation_id):
            raise ApiError(TraceCode.INTERACTION_NOT_FOUND, 404, params={
                "interaction_id": cmd.interaction_id, "conversation_id": cmd.conversation_id})
        self._require_active(interaction)
        if not (core.policy.capture_enabled and interaction.capture_enabled):
            await self._refresh_lease(interaction)
            return {"status": "not_captured"}
        key = operation_key(cmd.interaction_id, cmd.correlation, cmd.tool_name)
        async with core.lock("op", key):
            # marks the key as in flight until the store holds the operation (guards against a
            # second instance whose store lags); expires by itself if this process dies
            claimed = await core.coordination.put(
                Keys.operation(key), cmd.input_hash,
                ttl=core.policy.in_flight_seconds, only_if_absent=True)
            known = core.store.operation_by_key(key)
            if not claimed or known is not None:
                return await self._existing(cmd, interaction, key, known)
            try:
                return await self._new(cmd, interaction, key)
            except BaseException:
                await asyncio.shield(core.coordination.delete(Keys.operation(key)))
                raise

    def _require_active(self, interaction: Interaction) -> None:
        if not interaction.active:
            raise ApiError(
                TraceCode.INTERACTION_NOT_ACTIVE, 409,
                params={"interaction_id": interaction.interaction_id, "status": interaction.status},
                details={"interaction_id": interaction.interaction_id,
                         "status": interaction.status, "outcome": interaction.outcome},
            )

    async def _refresh_lease(self, interaction: Interaction) -> None:
        """Take or refresh the lease; lost to a newer interaction means this one is over."""
        holder = await self._core.coordination.claim(
            Keys.lease(interaction.conversation_id), interaction.interaction_id,
            self._core.policy.lease_seconds)
        if holder is not None:
            raise ApiError(
                TraceCode.INTERACTION_NOT_ACTIVE, 409,
                params={"interaction_id": interaction.interaction_id, "status": "superseded"},
                details={"interaction_id": interaction.interaction_id, "status": "superseded",
                         "active_interaction_id": holder},
            )

    async def _existing(
        self, cmd: BeginCommand, interaction: Interaction, key: str, op: Operation | None
    ) -> dict[str, Any]:
        recorded_hash = op.input_hash if op is not None else await self._core.coordination.get(
            Keys.operation(key))
        if recorded_hash is not None and recorded_hash != cmd.input_hash:
            raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={
                "operation_id": operation_id_for(key), "correlation": cmd.correlation})
        await self._refresh_lease(interaction)
        if op is not None and not op.final and self._abandoned(op):
            return {**_begun(op), "resumed": True}
        if op is None or not op.final:  # still running (perhaps begun by another instance)
            operation_id = operation_id_for(key)
            raise ApiError(TraceCode.RECEIPT_PENDING, 409, params={"operation_id": operation_id},
                           details={"operation_id": operation_id,
                                    "receipt_id": receipt_id_for(key)})
        return _replay(op)

    async def _new(self, cmd: BeginCommand, interaction: Interaction, key: str) -> dict[str, Any]:
        core = self._core
        limit = core.policy.max_operations_per_interaction
        refusal = ApiError(
            TraceCode.OPERATION_LIMIT_EXCEEDED, 409,
            params={"interaction_id": cmd.interaction_id, "limit": limit},
            details={"interaction_id": cmd.interaction_id, "limit": limit})
        if core.store.operation_count(cmd.interaction_id) >= limit:
            raise refusal
        await self._refresh_lease(interaction)
        counter = Keys.op_count(cmd.interaction_id)
        taken = await core.coordination.incr(counter, core.policy.idempotency_ttl_seconds)
        if max(taken, core.store.operation_count(cmd.interaction_id) + 1) > limit:
            await core.coordination.decr(counter)
            raise refusal
        event = ev.OperationRecorded(
            operation_id=operation_id_for(key), operation_key=key,
            conversation_id=cmd.conversation_id, interaction_id=cmd.interaction_id,
            tool_name=cmd.tool_name, input_hash=cmd.input_hash, receipt_id=receipt_id_for(key),
            receipt_status="pending", evidence_durability="pending", recorded_at=core.clock(),
            correlation=cmd.correlation,
        )
        core.record_soon(event)  # the final record supersedes it: no need to hold the caller
        return _begun(core.store.operations[event.operation_id])

    def _abandoned(self, op: Operation) -> bool:
        """A pending operation nobody completed within the pending timeout (its caller died):
        the retry takes it over instead of waiting forever."""
        age = self._core.clock() - datetime.fromisoformat(op.begun_at)
        return age.total_seconds() > self._core.policy.pending_timeout_seconds

    # ------------------------------------------------------------------ complete

    async def complete(self, cmd: CompleteCommand) -> dict[str, Any]:
        core = self._core
        op = self._operation(cmd)
        async with core.lock("op", op.operation_key):
            op = self._operation(cmd)
            if op.final:
                if op.receipt_status != cmd.receipt_status:
                    raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={
                        "operation_id": op.operation_id, "receipt_status": op.receipt_status})
                return _completed(op)
            evidence = self._evidence_events(op, cmd.evidence)
            encoded = json.dumps(cmd.result, ensure_ascii=False, separators=(",", ":"))
            omitted = len(encoded.encode()) > core.policy.max_result_bytes
            final = ev.OperationRecorded(
                operation_id=op.operation_id, operation_key=op.operation_key,
                conversation_id=op.conversation_id, interaction_id=op.interaction_id,
                tool_name=op.tool_name, input_hash=op.input_hash, receipt_id=op.receipt_id,
                receipt_status=cmd.receipt_status, evidence_durability="durable",
                recorded_at=core.clock(), correlation=op.correlation,
                result=None if omitted else cmd.result, result_omitted=omitted,
                execution_receipt_id=cmd.execution_receipt_id,
            )
            try:
                if evidence:  # evidence first: "durable" is only written once it is in the log
                    await core.record(*evidence)
                await core.record(final)
            except PublishFailed:
                return {**_completed(op), "receipt_status": cmd.receipt_status,
                        "evidence_durability": "failed"}
            return _completed(core.store.operations[op.operation_id])

    def _operation(self, cmd: CompleteCommand) -> Operation:
        op = self._core.store.operations.get(cmd.operation_id)
        interaction = self._core.store.interactions.get(op.interaction_id) if op else None
        if op is None or interaction is None or interaction.account != cmd.account:
            raise ApiError(TraceCode.OPERATION_NOT_FOUND, 404,
                           params={"operation_id": cmd.operation_id})
        return op

    def _evidence_events(
        self, op: Operation, items: tuple[EvidenceItem, ...]
    ) -> list[ev.EvidenceRecorded]:
        """One event per item; ``attempt`` is the item's ordinal within its evidence type."""
        seen: dict[str, int] = {}
        events = []
        for item in items:
            attempt = seen[item.evidence_type] = seen.get(item.evidence_type, 0) + 1
            events.append(ev.EvidenceRecorded(
                evidence_id=evidence_id(op.interaction_id, op.operation_id, item.evidence_type,
                                        attempt),
                operation_id=op.operation_id, interaction_id=op.interaction_id,
                evidence_type=item.evidence_type, attempt=attempt, attributes=item.attributes,
                source_refs=item.source_refs, recorded_at=self._core.clock(),
            ))
        return events
