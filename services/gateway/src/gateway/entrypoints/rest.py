"""REST: ``POST /api/agent-retrieval/v1/kn/<tool>`` for every tool in the catalogue."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from bkn_common.contracts import json_codec
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.domain.toon import TOON_MEDIA_TYPE, encode_toon
from bkn_common.framework.http import json_response
from gateway.entrypoints.auth import call_context
from gateway.service_layer.deps import Deps
from gateway.service_layer.pipeline import ToolOutcome, call_tool
from gateway.service_layer.ports import Authentication

PREFIX = "/api/agent-retrieval/v1"


def render(data: Any, response_format: str, headers: dict[str, str]) -> Response:
    if response_format == "toon":
        return Response(encode_toon(data), media_type=TOON_MEDIA_TYPE, headers=headers)
    return json_response(data, headers)


def outcome_headers(outcome: ToolOutcome) -> dict[str, str]:
    headers = dict(outcome.headers)
    if outcome.receipt:
        headers["bkn-receipt-id"] = str(outcome.receipt.get("receipt_id"))
        headers["bkn-operation-id"] = str(outcome.receipt.get("operation_id"))
        headers["bkn-receipt-status"] = str(outcome.receipt.get("receipt_status"))
        headers["bkn-evidence-durability"] = str(outcome.receipt.get("evidence_durability"))
    if outcome.trace_marker:
        headers["bkn-trace-recorded"] = "false"
        headers["bkn-trace-code"] = str(outcome.trace_marker["code"])
    return headers


def router(deps: Deps, authenticator: Authentication) -> APIRouter:
    api = APIRouter(prefix=PREFIX)

    @api.post("/kn/{tool_name}")
    async def call(
        tool_name: str,
        request: Request,
        response_format: Literal["json", "toon"] | None = Query(None),
        kn_id: str | None = Query(None),
    ) -> Response:
        ctx = call_context(request, authenticator, "rest")
        payload = await _json_body(request)
        if kn_id is not None:
            payload.setdefault("kn_id", kn_id)
        outcome = await call_tool(deps, ctx, tool_name, payload)
        definition = deps.registry.get(tool_name)
        data: Any = outcome.data
        if definition is not None and definition.rest_body is not None:
            data = definition.rest_body(outcome.data)
        elif outcome.trace_marker and isinstance(data, dict):
            data = {**data, "bkn_trace": outcome.trace_marker}
        chosen = response_format or ctx.response_format or "json"  # the query wins over the body
        return render(data, chosen, outcome_headers(outcome))

    return api


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = json_codec.loads(raw)
    except ValueError as exc:
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": "body is not valid JSON"}) from exc
    if not isinstance(body, dict):
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": "body must be a JSON object"})
    return body
