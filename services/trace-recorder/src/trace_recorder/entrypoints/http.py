"""Internal HTTP API of trace-recorder (called by the gateway; the caller in the signed
X-BKN-Account, checked by ``bkn_common.infra.mesh_http.MeshGuard`` before any route runs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Header, Request
from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from starlette.responses import Response

from bkn_common.contracts.errors import ApiError
from bkn_common.framework.http import error_response, json_response
from trace_recorder.domain.errors import TraceCode
from trace_recorder.service_layer.health import Health
from trace_recorder.service_layer.interactions import FinishCommand, Lifecycle, StartCommand
from trace_recorder.service_layer.operations import (
    BeginCommand,
    CompleteCommand,
    EvidenceItem,
    Operations,
)
from trace_recorder.service_layer.ports import CoordinationUnavailable
from trace_recorder.service_layer.recording import unavailable
from trace_recorder.service_layer.view_ports import StateReads, StoreUnavailable
from trace_recorder.service_layer.views import conversation_view, interaction_view

Account = Annotated[str, Header(alias="X-BKN-Account", min_length=1)]
OptionalAccount = Annotated[str | None, Header(alias="X-BKN-Account")]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=200)]
HostKey = Annotated[str, StringConstraints(min_length=1, max_length=512)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StartBody(Strict):
    question: Text
    agent_name: Text
    conversation_mode: Literal["new", "continue"]
    conversation_id: Id | None = None
    host_conversation_key: HostKey | None = None
    invocation_id: Id | None = None


class FinishBody(Strict):
    conversation_id: Id | None = None
    interaction_id: Id
    outcome: Literal["completed", "failed", "cancelled", "handed_off"]
    answer: str | None = None
    reason: str | None = None
    unrecorded_calls: int = Field(0, ge=0)
    invocation_id: Id | None = None


class BeginBody(Strict):
    conversation_id: Id
    interaction_id: Id
    tool_name: Text
    input_hash: Text
    correlation: Annotated[str, StringConstraints(min_length=1, max_length=256)]  # invocation ids: <= 256


class EvidenceBody(Strict):
    evidence_type: Literal["retrieval", "execution"]
    attributes: dict[str, Any] = Field(default_factory=dict)
    source_refs: list[str] = Field(default_factory=list)


class CompleteBody(Strict):
    operation_id: Id
    receipt_status: Literal["completed", "failed"]
    result: Any = None
    evidence: list[EvidenceBody] = Field(default_factory=list)
    execution_receipt_id: Id | None = None


def _owned(account: str | None, owner: str) -> bool:
    return account is None or account == owner


def router(
    lifecycle: Lifecycle,
    operations: Operations,
    store: StateReads,
    health: Health,
    *,
    capture_enabled: bool,
    replay_wait_seconds: float,
) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    async def writable() -> None:
        await health.wait_until_replayed(replay_wait_seconds)

    @api.get("/probe")
    async def probe() -> dict[str, Any]:
        if not await health.available():
            raise unavailable("its store or Redis is not usable")
        return {"available": True, "capture_enabled": capture_enabled}

    @api.post("/interactions/start")
    async def start(body: StartBody, account: Account) -> dict[str, Any]:
        await writable()
        return await lifecycle.start(StartCommand(account=account, **body.model_dump()))

    @api.post("/interactions/finish")
    async def finish(body: FinishBody, account: Account) -> dict[str, Any]:
        await writable()
        return await lifecycle.finish(FinishCommand(account=account, **body.model_dump()))

    @api.post("/operations/begin")
    async def begin(body: BeginBody, account: Account) -> dict[str, Any]:
        await writable()
        return await operations.begin(BeginCommand(account=account, **body.model_dump()))

    @api.post("/operations/complete")
    async def complete(body: CompleteBody, account: Account) -> dict[str, Any]:
        await writable()
        evidence = tuple(
            EvidenceItem(e.evidence_type, e.attributes, tuple(e.source_refs)) for e in body.evidence
        )
        return await operations.complete(CompleteCommand(
            account=account, operation_id=body.operation_id, receipt_status=body.receipt_status,
            result=body.result, evidence=evidence, execution_receipt_id=body.execution_receipt_id,
        ))

    @api.get("/conversations/{conversation_id}")
    async def conversation(conversation_id: str, account: OptionalAccount = None) -> Response:
        view = conversation_view(store, conversation_id)
        if view is None or not _owned(account, view["account"]):
            raise ApiError(TraceCode.CONVERSATION_NOT_FOUND, 404,
                           params={"conversation_id": conversation_id})
        return json_response(view)

    @api.get("/interactions/{interaction_id}")
    async def interaction(interaction_id: str, account: OptionalAccount = None) -> Response:
        records = store.interaction_records(interaction_id)
        if records is None or not _owned(account, records.interaction.account):
            raise ApiError(TraceCode.INTERACTION_NOT_FOUND, 404,
                           params={"interaction_id": interaction_id})
        return json_response(interaction_view(records))

    return api


def install_trace_errors(app: FastAPI) -> None:
    """Coordination and view-database failures leave as 503 ``trace_core_unavailable`` in the
    envelope."""

    async def on_coordination(request: Request, exc: Exception) -> Response:
        return error_response(request, unavailable(f"coordination store: {exc}"))

    async def on_store(request: Request, exc: Exception) -> Response:
        return error_response(request, unavailable(f"trace view database: {exc}"))

    app.add_exception_handler(CoordinationUnavailable, on_coordination)
    app.add_exception_handler(StoreUnavailable, on_store)


__all__ = ["install_trace_errors", "router"]
