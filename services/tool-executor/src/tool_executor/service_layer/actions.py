"""Running requested actions: each planned tool call at most once, however often Kafka
delivers the request.

The gateway publishes ``action.execution.requested`` with the plan ontology-query bound
(``parameters = {"inputs", "plan": {toolbox_id, tool_id, mode, calls, provenance}}``; each
call lists the targets it covers and the tool arguments). Here:

1. a request already finished (the ledger's ``done`` mark) is skipped; one older than
   :data:`MAX_REQUEST_AGE` is failed without running (a replayed log must not act again
   after the records expired);
2. a lease (renewed while running) keeps two workers off one execution;
   a worker that finds it held waits for it to end or expire;
3. before the first call, the caller's ``execute`` permission and the tool's gate are checked;
   a refusal fails the whole execution (``failed``: nothing ran);
4. each call is claimed (marked ``started``) before dispatch and its outcome stored
   after; a call found claimed without an outcome was interrupted (the process died while it
   ran), so it is reported failed and never sent again;
5. ``running`` updates carry the results so far; the last update is ``completed`` with
   per-target results and counts (some targets may have failed), then the record is ``done``.

A stop request is honoured between calls: the in-flight call finishes and is recorded, the
lease is released and the request stays uncommitted, so the next delivery resumes it.

The records live in an :class:`~tool_executor.service_layer.ports.ActionLedger` (Redis in
production: ``adapters/action_ledger.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import render_message
from tool_executor.domain.actions import STARTED, CallOutcome
from tool_executor.service_layer.execution import ExecuteCommand, ToolExecutor
from tool_executor.service_layer.ports import ActionLedger, ReceiptSink

log = logging.getLogger(__name__)

MAX_REQUEST_AGE = timedelta(hours=24)
RESULTS_BUDGET_BYTES = 512 * 1024  # per update event: the ACTIONS topic takes 1 MB records
RunEnd = Literal["finished", "interrupted"]


class PlannedCall(BaseModel):
    model_config = ConfigDict(extra="ignore")

    targets: list[int]
    arguments: dict[str, Any]


class ActionPlan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    toolbox_id: str
    tool_id: str
    mode: Literal["once", "per_instance"]
    calls: list[PlannedCall]
    provenance: dict[str, str | None] = {}


INTERRUPTED = CallOutcome(False, {"message": "the worker stopped while this call ran; its outcome "
                                             "is unknown and it is not sent again"}, "interrupted")


class ActionRunner:
    """Runs one requested execution (see the module docstring)."""

    def __init__(self, executor: ToolExecutor, updates: ReceiptSink, ledger: ActionLedger) -> None:
        self._executor = executor
        self._updates = updates
        self._ledger = ledger

    async def run(self, request: ev.ActionExecutionRequested, stopping: asyncio.Event) -> RunEnd:
        execution_id = request.execution_id
        if await self._ledger.is_done(execution_id):
            return "finished"
        token = uuid.uuid4().hex
        while not await self._ledger.acquire(execution_id, token):
            if stopping.is_set():
                return "interrupted"
            await asyncio.sleep(0.5)
            if await self._ledger.is_done(execution_id):
                return "finished"
        lost = asyncio.Event()
        renewal = asyncio.create_task(self._keep_lease(execution_id, token, lost))
        try:
            if await self._ledger.is_done(execution_id):
                return "finished"
            return await self._run_leased(request, stopping, lost)
        finally:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal
            await self._ledger.release(execution_id, token)

    async def _keep_lease(self, execution_id: str, token: str, lost: asyncio.Event) -> None:
        while True:
            await asyncio.sleep(self._ledger.lease_seconds / 3)
            try:
                if not await self._ledger.renew(execution_id, token):
                    lost.set()
                    return
            except Exception:  # Redis hiccup: try again; the lease outlives a few misses
                log.warning("renewing the lease of %s failed", execution_id, exc_info=True)

    async def _run_leased(
        self, request: ev.ActionExecutionRequested, stopping: asyncio.Event, lost: asyncio.Event
    ) -> RunEnd:
        execution_id = request.execution_id
        recorded = await self._ledger.outcomes(execution_id)
        refusal = _plan_refusal(request) or (None if recorded else self._refusal(request))
        if refusal is not None:
            await self._publish(request, "failed", [refusal] * len(request.targets))
            await self._ledger.finish(execution_id)
            return "finished"
        plan = ActionPlan.model_validate(request.parameters["plan"])
        results: dict[int, CallOutcome] = {}
        for index, raw in recorded.items():
            results[index] = INTERRUPTED if raw == STARTED else CallOutcome.load(raw)
            if raw == STARTED:
                log.warning("action %s: call %d was interrupted; it is not sent again",
                            execution_id, index)
        if recorded:
            log.info("action %s: resuming after %d recorded call(s)", execution_id, len(recorded))
        await self._publish(request, "running", _per_target(request, plan, results))
        for index, call in enumerate(plan.calls):
            if index in results:
                continue
            if stopping.is_set() or lost.is_set():
                log.info("action %s: stopping after %d of %d call(s)",
                         execution_id, len(results), len(plan.calls))
                return "interrupted"
            if not await self._ledger.claim(execution_id, index):
                results[index] = INTERRUPTED  # claimed by an earlier delivery that never finished
            else:
                results[index] = await self._call(request, plan, index, call)
            await self._ledger.record(execution_id, index, results[index])
            await self._publish(request, "running", _per_target(request, plan, results))
        await self._publish(request, "completed", _per_target(request, plan, results))
        await self._ledger.finish(execution_id)
        return "finished"

    def _refusal(self, request: ev.ActionExecutionRequested) -> CallOutcome | None:
        """Why nothing may run (permission, tool gate, age), or ``None``."""
        if datetime.now(UTC) - request.requested_at > MAX_REQUEST_AGE:
            return CallOutcome(False, {"message": "the request is too old to run",
                                       "requested_at": request.requested_at.isoformat()},
                               "request_expired")
        plan = request.parameters["plan"]
        authorisation = self._executor.authorisation
        try:
            authorisation.require_network_permission(request.kn_id, request.caller, "execute")
            ref = authorisation.owner_ref(request.kn_id, plan["toolbox_id"], plan["tool_id"])
            authorisation.check_executable(request.kn_id, ref)
        except ApiError as exc:
            return _refused(exc)
        return None

    async def _call(
        self, request: ev.ActionExecutionRequested, plan: ActionPlan, index: int, call: PlannedCall
    ) -> CallOutcome:
        provenance = plan.provenance
        command = ExecuteCommand(
            kn_id=request.kn_id, toolbox_id=plan.toolbox_id, tool_id=plan.tool_id,
            arguments=call.arguments, caller=request.caller,
            operation_id=provenance.get("operation_id"),
            conversation_id=provenance.get("conversation_id"),
            interaction_id=provenance.get("interaction_id"),
            receipt_id="rcpt_" + hashlib.sha256(
                f"{request.execution_id}:{index}".encode()).hexdigest()[:32],
        )
        try:
            outcome = await self._executor.execute(command)
        except ApiError as exc:
            return _refused(exc)
        except Exception as exc:  # a bug or an unexpected transport error: this call failed
            log.exception("action %s call %d failed", request.execution_id, index)
            return CallOutcome(False, {"message": str(exc)[:300]}, "internal_error")
        status = outcome.status_code
        if outcome.outcome == "succeeded" and (status is None or status < 400):
            return CallOutcome(True, outcome.body)
        return CallOutcome(False, {"status_code": status, "body": outcome.body,
                                   "receipt_id": outcome.receipt_id}, outcome.outcome)

    async def _publish(
        self,
        request: ev.ActionExecutionRequested,
        status: Literal["running", "completed", "failed"],
        results: list[CallOutcome | None],
    ) -> None:
        done = [(t, r) for t, r in zip(request.targets, results, strict=True) if r is not None]
        budget = RESULTS_BUDGET_BYTES // max(1, len(done))
        await self._updates.publish(ev.ActionExecutionUpdated(
            execution_id=request.execution_id, kn_id=request.kn_id,
            action_type_id=request.action_type_id, status=status,
            results=tuple(
                ev.ActionTargetResult(identity=t.identity, success=r.success,
                                      result=_bounded(r.result, budget), error=r.error)
                for t, r in done
            ),
            success_count=sum(1 for _, r in done if r.success),
            failed_count=sum(1 for _, r in done if not r.success),
            updated_at=datetime.now(UTC),
        ))


def _plan_refusal(request: ev.ActionExecutionRequested) -> CallOutcome | None:
    try:
        plan = ActionPlan.model_validate(request.parameters.get("plan"))
    except ValidationError as exc:
        reason = f"the request carries no valid plan: {exc.errors()[:3]}"
        return CallOutcome(False, {"message": reason}, "invalid_plan")
    covered = sorted(t for call in plan.calls for t in call.targets)
    if covered != list(range(len(request.targets))):
        return CallOutcome(False, {"message": "the plan does not cover each target exactly once"},
                           "invalid_plan")
    return None


def _per_target(
    request: ev.ActionExecutionRequested, plan: ActionPlan, outcomes: dict[int, CallOutcome]
) -> list[CallOutcome | None]:
    per_target: list[CallOutcome | None] = [None] * len(request.targets)
    for index, call in enumerate(plan.calls):
        outcome = outcomes.get(index)
        for target in call.targets:
            per_target[target] = outcome
    return per_target


def _refused(exc: ApiError) -> CallOutcome:
    message = render_message(exc.code, "en-US", exc.params)
    return CallOutcome(False, {"message": message, "details": exc.details, "status": exc.status},
                       exc.code)


def _bounded(value: Any, budget: int) -> Any:
    """``value``, or a marked preview when its JSON exceeds ``budget`` bytes."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text.encode()) <= budget:
        return value
    return {"truncated": True, "preview": text[: max(0, budget // 4)]}
