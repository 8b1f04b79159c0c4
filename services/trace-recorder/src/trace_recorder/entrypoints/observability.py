"""trace-recorder's internal read API behind the gateway's operator API
(``/api/agent-observability/v1``): listings with filters and a cursor, one operation, one
receipt. Read only; a signed ``X-BKN-Account`` limits a listing to that account (the gateway
sends it for a caller without the operator role), none reads every account."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query
from starlette.responses import Response

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.framework.http import json_response
from trace_recorder.domain.errors import TraceCode
from trace_recorder.service_layer.search import (
    TraceQuery,
    conversation_position,
    decode_cursor,
    interaction_position,
    page,
    utc_instant,
)
from trace_recorder.service_layer.view_ports import OperatorReads
from trace_recorder.service_layer.views import interaction_summary, operation_view

OptionalAccount = Annotated[str | None, Header(alias="X-BKN-Account")]
Filter = Annotated[str | None, Query(min_length=1, max_length=200)]
Limit = Annotated[int, Query(ge=1, le=200)]


def _query(account: str | None, filters: dict[str, str | None], cursor: str | None, limit: int) -> TraceQuery:
    if account is not None:
        filters["account"] = account
    try:
        for bound in ("since", "until"):
            if filters.get(bound) is not None:
                filters[bound] = utc_instant(str(filters[bound]))
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": f"since/until: {exc}"}) from exc
    try:
        after = decode_cursor(cursor) if cursor else None
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": "unknown cursor"}) from exc
    return TraceQuery(**filters, after=after, limit=limit)


def listing(
    account: OptionalAccount = None, filter_account: Annotated[str | None, Query(alias="account")] = None,
    agent: Filter = None, kn_id: Filter = None, tool: Filter = None, outcome: Filter = None,
    evidence_status: Filter = None, since: Filter = None, until: Filter = None,
    cursor: Filter = None, limit: Limit = 50,
) -> TraceQuery:
    """A listing's query: its filters, the signed account over any account filter."""
    return _query(account, {"account": filter_account, "agent": agent, "kn_id": kn_id, "tool": tool,
                            "outcome": outcome, "evidence_status": evidence_status,
                            "since": since, "until": until}, cursor, limit)


Listing = Annotated[TraceQuery, Depends(listing)]


def router(store: OperatorReads) -> APIRouter:
    api = APIRouter(prefix="/internal/v1/observability")

    @api.get("/interactions")
    async def interactions(query: Listing) -> Response:
        items, next_cursor = page(store.search_interactions(query), query, interaction_position)
        return json_response({"items": [
            {**interaction_summary(i, []), "operations": store.operation_count(i.interaction_id)}
            for i in items], "next_cursor": next_cursor})

    @api.get("/conversations")
    async def conversations(query: Listing) -> Response:
        items, next_cursor = page(store.search_conversations(query), query, conversation_position)
        listed = []
        for c in items:
            data: dict[str, Any] = asdict(c)
            data.pop("interaction_ids")
            data["interactions"] = [i.interaction_id for i in store.interactions_of(c.conversation_id)]
            listed.append(data)
        return json_response({"items": listed, "next_cursor": next_cursor})

    @api.get("/operations/{operation_id}")
    async def operation(operation_id: str, account: OptionalAccount = None) -> Response:
        op = store.operation(operation_id)
        owner = store.interaction(op.interaction_id) if op is not None else None
        if op is None or owner is None or (account is not None and owner.account != account):
            raise ApiError(TraceCode.OPERATION_NOT_FOUND, 404, params={"operation_id": operation_id})
        view = operation_view(op, store.receipts_of(operation_id), store.evidence_of(operation_id))
        return json_response({**view, "account": owner.account})

    @api.get("/receipts/{receipt_id}")
    async def receipt(receipt_id: str, account: OptionalAccount = None) -> Response:
        found = store.receipt(receipt_id)
        owner = store.interaction(found.interaction_id) if found and found.interaction_id else None
        if found is None or (account is not None and (owner is None or owner.account != account)):
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": f"receipt {receipt_id}"})
        return json_response({**asdict(found), "account": owner.account if owner else None})

    return api


__all__ = ["router"]
