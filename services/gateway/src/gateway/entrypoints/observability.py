"""The operator read API: ``GET /api/agent-observability/v1/...`` (read only, JSON, the error
envelope). Routes translate; ``service_layer.observability`` decides."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response

from bkn_common.framework.http import json_response, request_id, request_language
from gateway.service_layer.observability import Caller, Observability
from gateway.service_layer.ports import Authentication

PREFIX = "/api/agent-observability/v1"
Filter = Annotated[str | None, Query(min_length=1, max_length=200)]
Limit = Annotated[int, Query(ge=1, le=200)]


def listing(
    account: Filter = None, agent: Filter = None, kn_id: Filter = None, tool: Filter = None,
    outcome: Filter = None, evidence_status: Filter = None, since: Filter = None,
    until: Filter = None, cursor: Filter = None, limit: Limit = 50,
) -> dict[str, Any]:
    """A listing's filters, checked (trace-recorder reads them)."""
    return {"account": account, "agent": agent, "kn_id": kn_id, "tool": tool, "outcome": outcome,
            "evidence_status": evidence_status, "since": since, "until": until,
            "cursor": cursor, "limit": limit}


Listing = Annotated[dict[str, Any], Depends(listing)]


def caller_of(request: Request, authenticator: Authentication) -> Caller:
    principal = authenticator.authenticate(request.headers.get("authorization"))
    return Caller(principal, request_language(request), request_id(request))


def router(observability: Observability, authenticator: Authentication) -> APIRouter:
    api = APIRouter(prefix=PREFIX, tags=["observability"])

    def caller(request: Request) -> Caller:
        return caller_of(request, authenticator)

    @api.get("/interactions")
    async def interactions(request: Request, filters: Listing) -> Response:
        return json_response(await observability.interactions(caller(request), filters))

    @api.get("/conversations")
    async def conversations(request: Request, filters: Listing) -> Response:
        return json_response(await observability.conversations(caller(request), filters))

    @api.get("/conversations/{conversation_id}")
    async def conversation(conversation_id: str, request: Request) -> Response:
        return json_response(await observability.conversation(caller(request), conversation_id))

    @api.get("/interactions/{interaction_id}")
    async def interaction(interaction_id: str, request: Request) -> Response:
        return json_response(await observability.interaction(caller(request), interaction_id))

    @api.get("/interactions/{interaction_id}/operations")
    async def operations(interaction_id: str, request: Request) -> Response:
        return json_response(await observability.operations(caller(request), interaction_id))

    @api.get("/interactions/{interaction_id}/evidence-chain")
    async def chain(interaction_id: str, request: Request) -> Response:
        return json_response(await observability.evidence_chain(caller(request), interaction_id))

    @api.get("/interactions/{interaction_id}/bundle")
    async def bundle(interaction_id: str, request: Request) -> Response:
        return json_response(await observability.bundle(caller(request), interaction_id))

    @api.get("/operations/{operation_id}")
    async def operation(operation_id: str, request: Request) -> Response:
        return json_response(await observability.operation(caller(request), operation_id))

    @api.get("/receipts/{receipt_id}")
    async def receipt(receipt_id: str, request: Request) -> Response:
        return json_response(await observability.receipt(caller(request), receipt_id))

    @api.get("/dead-letters")
    async def dead_letters(request: Request, limit: Annotated[int, Query(ge=0, le=200)] = 20) -> Response:
        return json_response(await observability.dead_letters(caller(request), limit))

    @api.get("/projections")
    async def projections(request: Request) -> Response:
        return json_response(await observability.projections(caller(request)))

    return api
