"""REST of the knowledge-base API (seed 002's Developer OpenAPI), under the same credential as
every other gateway route: ``GET /openapi/v2/knowledge-bases/{kbId}/...``. Every ``readActions``
path the service returns is one of these routes. Each route becomes a tool call on the shared
pipeline; refusals leave in the OpenAPI envelope."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.openapi_errors import as_openapi_error
from bkn_common.framework.http import error_response, json_response, request_language, routing_error
from gateway.entrypoints.auth import call_context
from gateway.entrypoints.rest import outcome_headers
from gateway.service_layer.deps import Deps
from gateway.service_layer.pipeline import call_tool
from gateway.service_layer.ports import Authentication

PREFIX = "/openapi/v2/knowledge-bases/{kb_id}"
ROOT = "/openapi/v2/knowledge-bases/"
INTEGERS = ("limit", "depth", "fanout", "graphDepth", "graphFanout")


def _arguments(request: Request, names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        value = request.query_params.get(name)
        if value is None:
            continue
        if name in INTEGERS:
            out[name] = int(value) if value.lstrip("-").isdigit() else value
        elif name == "rerank":
            out[name] = value.lower() in ("true", "1") if value.lower() in ("true", "false", "1", "0") else value
        else:
            out[name] = value
    return out


async def routing_refusal(request: Request, exc: Exception) -> Response:
    """The router's 404/405 (``bkn_common.framework.http.routing_error``): in this API's OpenAPI envelope
    under its paths, in the mesh envelope everywhere else on the gateway."""
    assert isinstance(exc, HTTPException)
    error = routing_error(request, exc)
    if request.url.path.startswith(ROOT):
        error = as_openapi_error(error, request_language(request))
    return error_response(request, error)


def router(deps: Deps, authenticator: Authentication) -> APIRouter:
    api = APIRouter(prefix=PREFIX)

    async def run(request: Request, tool: str, arguments: dict[str, Any]) -> Response:
        try:
            ctx = call_context(request, authenticator, "rest")
            outcome = await call_tool(deps, ctx, tool, arguments)
        except ApiError as exc:  # its headers (Retry-After) and the request id go along
            return error_response(request, as_openapi_error(exc, request_language(request)))
        return json_response(outcome.data, outcome_headers(outcome))

    @api.get("/tree")
    async def tree(kb_id: str, request: Request) -> Response:
        names = ("parentPath", "cursor", "limit")
        return await run(request, "list_tree", {"kbId": kb_id, **_arguments(request, names)})

    @api.get("/files/search")
    async def search(kb_id: str, request: Request) -> Response:
        names = ("query", "mode", "graphDepth", "graphFanout", "rerank", "limit", "cursor")
        return await run(request, "search_files", {"kbId": kb_id, **_arguments(request, names)})

    @api.get("/files/content")
    async def content_by_path(kb_id: str, request: Request) -> Response:
        return await run(request, "read_file", {"kbId": kb_id, **_arguments(request, ("path", "fileId"))})

    @api.get("/files/{file_id}")
    async def get_file(kb_id: str, file_id: str, request: Request) -> Response:
        return await run(request, "get_file", {"kbId": kb_id, "fileId": file_id})

    @api.get("/files/{file_id}/content")
    async def content_by_id(kb_id: str, file_id: str, request: Request) -> Response:
        return await run(request, "read_file", {"kbId": kb_id, "fileId": file_id})

    @api.get("/files/{file_id}/related")
    async def related(kb_id: str, file_id: str, request: Request) -> Response:
        return await run(request, "read_related",
                         {"kbId": kb_id, "fileId": file_id, **_arguments(request, ("cursor", "limit"))})

    @api.get("/graph/expand")
    async def expand(kb_id: str, request: Request) -> Response:
        names = ("fileId", "depth", "fanout", "limit", "cursor")
        return await run(request, "expand_graph", {"kbId": kb_id, **_arguments(request, names)})

    return api
