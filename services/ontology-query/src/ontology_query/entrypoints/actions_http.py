"""Internal API of ontology-query for logic properties and action executions (gateway only).

Network-level permissions are the gateway's to check; these routes answer for whatever network
they name. Logic property values also apply the caller's object-type grants: the gateway passes
the account in ``X-BKN-Account`` and, when a request flow applies, ``permission_request``.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from ontology_query.entrypoints.bodies import Account, PermissionRequestBody, StrictBody, caller
from ontology_query.service_layer.actions import PlanRequest, plan_action
from ontology_query.service_layer.executions import ExecutionQuery
from ontology_query.service_layer.logic_properties import LogicRequest, resolve_logic_properties
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import network_store


class LogicBody(StrictBody):
    kn_id: str
    ot_id: str
    identities: list[Any] = Field(min_length=1)
    properties: list[str] = Field(min_length=1)
    dynamic_params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    permission_request: PermissionRequestBody | None = None


class PlanBody(StrictBody):
    kn_id: str
    action_type_id: str
    identities: list[Any] = Field(default_factory=list)
    inputs: dict[str, Any] | None = None


class ExecutionBody(StrictBody):
    kn_id: str
    execution_id: str


class ExecutionPageBody(StrictBody):
    kn_id: str
    action_type_id: str | None = None
    status: Literal["pending", "running", "completed", "failed", "cancelled"] | None = None
    trigger_type: Literal["manual", "scheduled"] | None = None
    start_time_from: int | None = Field(None, ge=0)
    start_time_to: int | None = Field(None, ge=0)
    limit: int = Field(20, ge=1, le=1000)
    offset: int = Field(0, ge=0)
    search_after: list[Any] | None = None


def router(state: OntologyState) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.post("/logic-properties/resolve")
    async def resolve(body: LogicBody, request: Request, account: Account) -> dict[str, Any]:
        logic = LogicRequest(**body.model_dump(exclude={"permission_request"}))
        return resolve_logic_properties(state, logic,
                                        caller(request, account, body.permission_request))

    @api.post("/actions/plan")
    async def plan(body: PlanBody) -> dict[str, Any]:
        return plan_action(state, PlanRequest(**body.model_dump()))

    @api.post("/actions/executions/get")
    async def get_execution(body: ExecutionBody) -> dict[str, Any]:
        network_store(state, body.kn_id)
        return state.executions.get(body.kn_id, body.execution_id)

    @api.post("/actions/executions/list")
    async def list_executions(body: ExecutionPageBody) -> dict[str, Any]:
        network_store(state, body.kn_id)
        query = ExecutionQuery(**body.model_dump(exclude={"kn_id", "limit", "offset",
                                                          "search_after"}))
        return state.executions.page(body.kn_id, query, limit=body.limit, offset=body.offset,
                                     search_after=body.search_after)

    return api
