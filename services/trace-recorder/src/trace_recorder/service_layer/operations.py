"""Operations: begin (operation key, idempotency, lease, limit) and complete (receipt and
evidence, with deterministic evidence ids)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from trace_recorder.domain.errors import TraceCode
from trace_recorder.domain.model import Interaction, Operation
from trace_recorder.domain.rules import (
    abandoned,
    evidence_id,
    operation_id_for,
    operation_key,
    receipt_id_for,
)
from trace_recorder.service_layer.deferred import PendingRecords
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.ports import CoordinationUnavailable, OperationClaim
from trace_recorder.service_layer.recording import Core, PublishFailed, unavailable


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

    def __init__(self, core: Core, pending: PendingRecords | None = None) -> None:
        self._core = core
        self.pending = pending or PendingRecords(core)

    # ------------------------------------------------------------------ begin

    async def begin(self, cmd: BeginCommand) -> dict[str, Any]:
        core = self._core
        interaction = core.store.interaction(cmd.interaction_id)
        if (interaction is None or interaction.account != cmd.account
                or interaction.conversation_id != cmd.conversation_id):
            raise ApiError(TraceCode.INTERACTION_NOT_FOUND, 404, params={
                "interaction_id": cmd.interaction_id, "conversation_id": cmd.conversation_id})
        self._require_active(interaction)
        if not (core.policy.capture_enabled and interaction.capture_enabled):
            await self._refresh_lease(interaction)
            return {"status": "not_captured"}
        key = operation_key(cmd.interaction_id, cmd.correlation, cmd.tool_name)
        limit = core.policy.max_operations_per_interaction
        pending = self._pending_record(cmd, key)
        claim = await self._claim(cmd, key, pending)
        known = core.store.operation_by_key(key)
        if claim.status == "new":
            if known is None:
                if core.store.operation_count(cmd.interaction_id) < limit:
                    return await self._new(cmd, key, pending)
                # the store gained operations while the claim ran: one more is over the limit
                await self._unclaim(cmd, key)
                raise self._over_limit(cmd)
            # the store caught up with it while the claim ran: an existing operation after all
            # (as before, its in-flight marker stays; it is just not counted twice)
            await core.coordination.decr(Keys.op_count(cmd.interaction_id))
            await self._forget_deferred(pending.operation_id)
        elif claim.status == "limit" and known is None:
            raise self._over_limit(cmd)
        return await self._existing(cmd, interaction, key, known, claim)

    def _pending_record(self, cmd: BeginCommand, key: str) -> ev.OperationRecorded:
        core = self._core
        return ev.OperationRecorded(
            operation_id=operation_id_for(key), operation_key=key,
            conversation_id=cmd.conversation_id, interaction_id=cmd.interaction_id,
            tool_name=cmd.tool_name, input_hash=cmd.input_hash,
            receipt_id=receipt_id_for(key), receipt_status="pending",
            evidence_durability="pending", recorded_at=core.clock(),
            correlation=cmd.correlation,
        )

    async def _claim(
        self, cmd: BeginCommand, key: str, pending: ev.OperationRecorded,
    ) -> OperationClaim:
        """One atomic step on the coordination store (one round trip on Redis): mark the
        operation in flight (a guard against a second instance whose store lags; it expires
        by itself if this process dies), take or refresh the lease and count it against the
        interaction's limit — or find it existing — see :meth:`Coordination.claim_operation`.
        Its atomicity is what the per-key lock gave begin: nobody sees a half-made claim.
        With a pending-record delay, a new claim also stores the pending record, deferred
        (:mod:`.deferred`)."""
        core = self._core
        known = core.store.operation_by_key(key)
        call = asyncio.ensure_future(core.coordination.claim_operation(
            Keys.operation(key), cmd.input_hash, in_flight_ttl=core.policy.in_flight_seconds,
            lease_key=Keys.lease(cmd.conversation_id), lease_holder=cmd.interaction_id,
            lease_ttl=core.policy.lease_seconds, counter_key=Keys.op_count(cmd.interaction_id),
            counter_ttl=core.policy.idempotency_ttl_seconds,
            limit=core.policy.max_operations_per_interaction,
            stored_count=core.store.operation_count(cmd.interaction_id),
            stored_hash=None if known is None else known.input_hash,
            deferred=self.pending.deferred(pending) if self.pending.enabled else None,
        ))
        try:
            return await asyncio.shield(call)
        except asyncio.CancelledError:
            # the claim goes on without the caller: if it counts and marks the operation,
            # it is given back, as for any begin that fails after its claim
            with contextlib.suppress(Exception):
                if (await asyncio.shield(call)).status == "new":
                    await asyncio.shield(self._unclaim(cmd, key))
            raise

    async def _unclaim(self, cmd: BeginCommand, key: str) -> None:
        """Give a ``new`` claim back: uncount it and drop its in-flight marker."""
        await self._core.coordination.decr(Keys.op_count(cmd.interaction_id))
        await self._drop_marker(key)

    async def _drop_marker(self, key: str) -> None:
        """Drop a new claim's in-flight marker (and its deferred pending record)."""
        await self._core.coordination.delete(Keys.operation(key))
        await self._forget_deferred(operation_id_for(key))

    async def _forget_deferred(self, operation_id: str) -> None:
        if self.pending.enabled:
            await self.pending.forget(operation_id)

    def _over_limit(self, cmd: BeginCommand) -> ApiError:
        limit = self._core.policy.max_operations_per_interaction
        return ApiError(
            TraceCode.OPERATION_LIMIT_EXCEEDED, 409,
            params={"interaction_id": cmd.interaction_id, "limit": limit},
            details={"interaction_id": cmd.interaction_id, "limit": limit})

    def _require_active(self, interaction: Interaction) -> None:
        if not interaction.active:
            raise ApiError(
                TraceCode.INTERACTION_NOT_ACTIVE, 409,
                params={"interaction_id": interaction.interaction_id, "status": interaction.status},
                details={"interaction_id": interaction.interaction_id,
                         "status": interaction.status, "outcome": interaction.outcome},
            )

    @staticmethod
    def _superseded(interaction: Interaction, holder: str) -> ApiError:
        return ApiError(
            TraceCode.INTERACTION_NOT_ACTIVE, 409,
            params={"interaction_id": interaction.interaction_id, "status": "superseded"},
            details={"interaction_id": interaction.interaction_id, "status": "superseded",
                     "active_interaction_id": holder},
        )

    async def _refresh_lease(self, interaction: Interaction) -> None:
        """Take or refresh the lease; lost to a newer interaction means this one is over."""
        holder = await self._core.coordination.claim(
            Keys.lease(interaction.conversation_id), interaction.interaction_id,
            self._core.policy.lease_seconds)
        if holder is not None:
            raise self._superseded(interaction, holder)

    @staticmethod
    def _check_hash(cmd: BeginCommand, key: str, recorded_hash: str | None) -> None:
        if recorded_hash is not None and recorded_hash != cmd.input_hash:
            raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={
                "operation_id": operation_id_for(key), "correlation": cmd.correlation})

    async def _existing(
        self, cmd: BeginCommand, interaction: Interaction, key: str, op: Operation | None,
        claim: OperationClaim,
    ) -> dict[str, Any]:
        # the store's record decides the hash; else the in-flight marker's
        self._check_hash(cmd, key, op.input_hash if op is not None else claim.recorded_hash)
        if claim.status == "superseded" and claim.holder is not None:
            raise self._superseded(interaction, claim.holder)
        if claim.status not in ("new", "existing"):  # the claim did not get to the lease
            await self._refresh_lease(interaction)
        if op is not None and op.final:
            return _replay(op)
        # still running (perhaps begun by another instance) or abandoned: a complete may be
        # under way — wait for it as begin always did (under the operation's lock), then look
        async with self._core.lock("op", key):
            op = self._core.store.operation_by_key(key)
            if op is not None:
                self._check_hash(cmd, key, op.input_hash)
                if op.final:
                    return _replay(op)
                if self._abandoned(op):
                    return {**_begun(op), "resumed": True}
        operation_id = operation_id_for(key)
        raise ApiError(TraceCode.RECEIPT_PENDING, 409, params={"operation_id": operation_id},
                       details={"operation_id": operation_id, "receipt_id": receipt_id_for(key)})

    async def _new(self, cmd: BeginCommand, key: str, event: ev.OperationRecorded) -> dict[str, Any]:
        core = self._core
        try:
            if self.pending.enabled:  # the claim stored it; the view gets it with the log
                return _begun(self.pending.hold(event))
            # no delay: on the log before the view and the caller see it
            try:
                await core.record(event)
            except PublishFailed as exc:  # nothing recorded: the caller may run unrecorded
                raise unavailable("the trace log did not acknowledge the begin") from exc
            return _begun(self._recorded(event.operation_id))
        except BaseException:
            # uncounted too: finish compares the count with the view (see settling.unlanded)
            await asyncio.shield(self._unclaim(cmd, key))
            raise

    def _abandoned(self, op: Operation) -> bool:
        """A pending operation nobody completed within the pending timeout (its caller died):
        the retry takes it over instead of waiting forever."""
        return abandoned(op, self._core.clock(), self._core.policy.pending_timeout_seconds)

    # ------------------------------------------------------------------ complete

    async def complete(self, cmd: CompleteCommand) -> dict[str, Any]:
        core = self._core
        op, deferred = await self._operation(cmd)
        async with core.lock("op", op.operation_key):
            op, deferred = await self._operation(cmd, deferred)
            if op.final:
                if op.receipt_status != cmd.receipt_status:
                    raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={
                        "operation_id": op.operation_id, "receipt_status": op.receipt_status})
                return _completed(op)
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
                begun_at=datetime.fromisoformat(op.begun_at),
                evidence=self._evidence(op, cmd.evidence),
            )
            try:  # one record: "durable" and the evidence reach the log together
                await core.record(final)
            except PublishFailed:
                return {**_completed(op), "receipt_status": cmd.receipt_status,
                        "evidence_durability": "failed"}
            if deferred is not None:  # its pending record is not needed any more
                with contextlib.suppress(CoordinationUnavailable):  # a sweep finds it final
                    await self.pending.forget(op.operation_id)
            return _completed(self._recorded(op.operation_id))

    def _recorded(self, operation_id: str) -> Operation:
        op = self._core.store.operation(operation_id)
        if op is None:  # recorded, yet not in the view: it cannot answer now
            raise unavailable("the trace view did not keep the operation")
        return op

    async def _operation(
        self, cmd: CompleteCommand, deferred: Operation | None = None,
    ) -> tuple[Operation, Operation | None]:
        """The operation to complete, and whether it is one whose pending record is deferred
        (not in the view yet: this replica's copy, ``deferred`` as found before, or the
        coordination store's)."""
        op = self._core.store.operation(cmd.operation_id)
        if op is None:
            op = deferred or await self.pending.operation(cmd.operation_id)
            deferred = op
        else:
            deferred = None
        interaction = self._core.store.interaction(op.interaction_id) if op else None
        if op is None or interaction is None or interaction.account != cmd.account:
            raise ApiError(TraceCode.OPERATION_NOT_FOUND, 404,
                           params={"operation_id": cmd.operation_id})
        return op, deferred

    @staticmethod
    def _evidence(op: Operation, items: tuple[EvidenceItem, ...]) -> tuple[ev.OperationEvidence, ...]:
        """The final record's evidence; ``attempt`` is the item's ordinal within its type."""
        seen: dict[str, int] = {}
        evidence = []
        for item in items:
            attempt = seen[item.evidence_type] = seen.get(item.evidence_type, 0) + 1
            evidence.append(ev.OperationEvidence(
                evidence_id=evidence_id(op.interaction_id, op.operation_id, item.evidence_type,
                                        attempt),
                evidence_type=item.evidence_type, attempt=attempt, attributes=item.attributes,
                source_refs=item.source_refs,
            ))
        return tuple(evidence)
