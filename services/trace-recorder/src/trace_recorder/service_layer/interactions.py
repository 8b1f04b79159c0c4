"""Interaction lifecycle: start (conversation mapping, lease, idempotency) and finish."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Literal

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from trace_recorder.domain.errors import TraceCode
from trace_recorder.domain.model import Interaction, Operation
from trace_recorder.domain.rules import (
    OUTCOMES_NEEDING_REASON,
    abandoned,
    canonical_hash,
    evidence_status,
    execution_status,
    new_conversation_id,
    new_interaction_id,
)
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.recording import Core, PublishFailed, unavailable
from trace_recorder.service_layer.settling import settle, unlanded

Outcome = Literal["completed", "failed", "cancelled", "handed_off"]


@dataclass(frozen=True)
class StartCommand:
    account: str
    question: str
    agent_name: str
    conversation_mode: Literal["new", "continue"]
    conversation_id: str | None = None
    host_conversation_key: str | None = None
    invocation_id: str | None = None

    def input_hash(self) -> str:
        return canonical_hash({
            "question": self.question, "agent_name": self.agent_name,
            "conversation_mode": self.conversation_mode,
            "conversation_id": self.conversation_id,
            "host_conversation_key": self.host_conversation_key,
        })


@dataclass(frozen=True)
class FinishCommand:
    """``conversation_id`` may be omitted: the interaction id alone names the turn (the
    upstream clients' finish); when given it must match."""

    account: str
    conversation_id: str | None
    interaction_id: str
    outcome: Outcome
    answer: str | None = None
    reason: str | None = None
    unrecorded_calls: int = 0
    invocation_id: str | None = None

    def input_hash(self) -> str:
        return canonical_hash({
            "conversation_id": self.conversation_id, "interaction_id": self.interaction_id,
            "outcome": self.outcome, "answer": self.answer, "reason": self.reason,
        })


def _start_result(interaction: Interaction, *, replayed: bool) -> dict[str, Any]:
    return {
        "conversation_id": interaction.conversation_id,
        "interaction_id": interaction.interaction_id,
        "capture_enabled": interaction.capture_enabled,
        "new_conversation": interaction.new_conversation,
        "replayed": replayed,
    }


def finish_result(interaction: Interaction) -> dict[str, Any]:
    return {
        "conversation_id": interaction.conversation_id,
        "interaction_id": interaction.interaction_id,
        "outcome": interaction.outcome,
        "execution_status": interaction.execution_status,
        "evidence_status": interaction.evidence_status,
        "operations": interaction.operations_at_finish or 0,
    }


class Lifecycle:
    """``start`` and ``finish`` of interactions; see the internal API in the README."""

    def __init__(self, core: Core) -> None:
        self._core = core

    # ------------------------------------------------------------------ start

    async def start(self, cmd: StartCommand) -> dict[str, Any]:
        # new must not carry an id, continue must; a host key decides by itself
        mismatched = (cmd.conversation_mode == "new") == bool(cmd.conversation_id)
        if mismatched and not cmd.host_conversation_key:
            raise ApiError(
                TraceCode.INVALID_CONVERSATION_MODE, 400,
                params={"mode": cmd.conversation_mode},
                details={"conversation_mode": cmd.conversation_mode,
                         "conversation_id": cmd.conversation_id},
            )
        if not cmd.invocation_id:
            return await self._start_fresh(cmd)
        key = Keys.invocation("start", cmd.account, cmd.invocation_id)
        async with self._core.lock("inv", key):
            prior = await self._prior_start(cmd, key)
            if prior is not None:
                return prior
            result = await self._start_fresh(cmd)
            record = {"input_hash": cmd.input_hash(), "result": result}
            await self._core.coordination.put(
                key, json.dumps(record), ttl=self._core.policy.idempotency_ttl_seconds)
            return result

    async def _prior_start(self, cmd: StartCommand, key: str) -> dict[str, Any] | None:
        raw = await self._core.coordination.get(key)
        if raw is not None:
            record = json.loads(raw)
            input_hash, result = record["input_hash"], dict(record["result"])
        else:  # the log remembers invocation ids too (Redis may have lost the record)
            interaction = self._core.store.interaction_by_invocation(
                cmd.account, cmd.invocation_id or "")
            if interaction is None:
                return None
            input_hash, result = interaction.input_hash, _start_result(interaction, replayed=True)
        if input_hash != cmd.input_hash():
            raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409,
                           details={"invocation_id": cmd.invocation_id})
        return {**result, "replayed": True}

    async def _start_fresh(self, cmd: StartCommand) -> dict[str, Any]:
        core = self._core
        if cmd.host_conversation_key:
            key = Keys.host(cmd.account, cmd.host_conversation_key)
            async with core.lock("host", key):
                mapped = await core.coordination.get(key) or core.store.conversation_by_host_key(
                    cmd.account, cmd.host_conversation_key)
                if mapped is not None:
                    return await self._open(cmd, mapped, new=False)
                result = await self._open(cmd, new_conversation_id(), new=True)
                await core.coordination.put(key, result["conversation_id"],
                                            ttl=core.policy.host_mapping_ttl_seconds)
                return result
        if cmd.conversation_mode == "new":
            return await self._open(cmd, new_conversation_id(), new=True)
        conversation = core.store.conversation(cmd.conversation_id or "")
        if conversation is None or conversation.account != cmd.account:
            raise ApiError(TraceCode.CONVERSATION_NOT_FOUND, 404,
                           params={"conversation_id": cmd.conversation_id})
        return await self._open(cmd, conversation.conversation_id, new=False)

    async def _open(self, cmd: StartCommand, conversation_id: str, *, new: bool) -> dict[str, Any]:
        """Take the conversation's lease for a new interaction and record its start."""
        core = self._core
        interaction_id = new_interaction_id()
        lease = Keys.lease(conversation_id)
        async with core.lock("conv", conversation_id):
            holder = await core.coordination.claim(lease, interaction_id, core.policy.lease_seconds)
            if holder is not None:
                held = core.store.interaction(holder)
                if held is not None and held.active:
                    raise ApiError(
                        TraceCode.INTERACTION_ACTIVE, 409,
                        params={"conversation_id": conversation_id,
                                "active_interaction_id": holder},
                        details={"conversation_id": conversation_id,
                                 "active_interaction_id": holder},
                    )
                # a stale lease (its interaction finished): take it over
                await core.coordination.put(lease, interaction_id, ttl=core.policy.lease_seconds)
            started = ev.InteractionStarted(
                conversation_id=conversation_id, interaction_id=interaction_id,
                new_conversation=new, account=cmd.account, agent_name=cmd.agent_name,
                question=cmd.question, host_conversation_key=cmd.host_conversation_key,
                capture_enabled=core.policy.capture_enabled, started_at=core.clock(),
                invocation_id=cmd.invocation_id, input_hash=cmd.input_hash(),
            )
            stale = core.store.active_interaction(conversation_id)
            events: list[ev.Event] = [started]
            if stale is not None:  # its lease expired: it is abandoned, the new turn proceeds
                events.insert(0, self._finished_event(stale, "abandoned", None, "lease expired", 0))
            try:
                await core.record(*events)
            except PublishFailed as exc:
                await core.coordination.release(lease, interaction_id)
                raise unavailable("the trace log did not acknowledge the start") from exc
        opened = core.store.interaction(interaction_id)
        if opened is None:  # recorded, yet not in the view: it cannot answer now
            raise unavailable("the trace view did not keep the start")
        return _start_result(opened, replayed=False)

    # ------------------------------------------------------------------ finish

    async def finish(self, cmd: FinishCommand) -> dict[str, Any]:
        if cmd.outcome == "completed" and not cmd.answer:
            raise ApiError(TraceCode.ANSWER_REQUIRED, 400)
        if cmd.outcome in OUTCOMES_NEEDING_REASON and not cmd.reason:
            raise ApiError(TraceCode.REASON_REQUIRED, 400, params={"outcome": cmd.outcome})
        interaction = self._interaction(cmd)
        cmd = replace(cmd, conversation_id=interaction.conversation_id)
        missing = 0  # operations still completing land first (bounded)
        if interaction.active and not await settle(self._core, cmd.interaction_id):
            missing = await unlanded(self._core, cmd.interaction_id)
        if not cmd.invocation_id:
            return await self._finish(cmd, missing)
        key = Keys.invocation("finish", cmd.account, cmd.invocation_id)
        async with self._core.lock("inv", key):
            prior = await self._core.coordination.get(key)
            if prior is not None and prior != cmd.input_hash():
                raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409,
                               details={"invocation_id": cmd.invocation_id})
            result = await self._finish(cmd, missing)
            await self._core.coordination.put(
                key, cmd.input_hash(), ttl=self._core.policy.idempotency_ttl_seconds)
            return result

    def _interaction(self, cmd: FinishCommand) -> Interaction:
        interaction = self._core.store.interaction(cmd.interaction_id)
        if (interaction is None or interaction.account != cmd.account
                or cmd.conversation_id not in (None, interaction.conversation_id)):
            raise ApiError(TraceCode.INTERACTION_NOT_FOUND, 404, params={
                "interaction_id": cmd.interaction_id, "conversation_id": cmd.conversation_id})
        return interaction

    async def _finish(self, cmd: FinishCommand, unlanded: int = 0) -> dict[str, Any]:
        core = self._core
        interaction = self._interaction(cmd)
        async with core.lock("conv", interaction.conversation_id):
            interaction = self._interaction(cmd)
            if not interaction.active:
                same = (interaction.outcome, interaction.answer, interaction.reason) == (
                    cmd.outcome, cmd.answer, cmd.reason)
                if same:
                    return finish_result(interaction)
                raise ApiError(
                    TraceCode.INTERACTION_FINISHED, 409,
                    params={"interaction_id": interaction.interaction_id,
                            "outcome": interaction.outcome},
                    details={"interaction_id": interaction.interaction_id,
                             "outcome": interaction.outcome},
                )
            finished = self._finished_event(
                interaction, cmd.outcome, cmd.answer, cmd.reason, cmd.unrecorded_calls, unlanded)
            try:
                await core.record(finished)
            except PublishFailed as exc:
                raise unavailable("the trace log did not acknowledge the finish") from exc
            await core.coordination.release(
                Keys.lease(interaction.conversation_id), interaction.interaction_id)
        return finish_result(self._interaction(cmd))  # as the view now holds it

    def _finished_event(
        self, interaction: Interaction, outcome: str, answer: str | None, reason: str | None,
        unrecorded_calls: int, unlanded: int = 0,
    ) -> ev.InteractionFinished:
        operations = self._core.store.operations_of(interaction.interaction_id)
        now, timeout = self._core.clock(), self._core.policy.pending_timeout_seconds

        def lost(op: Operation) -> bool:
            return abandoned(op, now, timeout)

        return ev.InteractionFinished.model_validate({
            "conversation_id": interaction.conversation_id,
            "interaction_id": interaction.interaction_id,
            "outcome": outcome, "answer": answer, "reason": reason,
            "execution_status": execution_status(operations, unlanded),
            "evidence_status": evidence_status(interaction, operations, unrecorded_calls, lost,
                                               unlanded),
            "finished_at": self._core.clock(), "unrecorded_calls": unrecorded_calls,
            "operations": len(operations) + unlanded,
        })
