"""Internal HTTP API of knowledge-base (the gateway serves it as ``/openapi/v2/knowledge-bases``).

Routes only translate: query parameters become a handler call for the account in
``X-BKN-Account``. Every call takes a token from the account's bucket first. Answers are
encoded with orjson (``bkn_common.contracts.json_codec``), not FastAPI's generic encoder (a search answer
of 10 items cost 1 ms there). Reads run in a worker thread: the view a read builds after an
apply (seconds on a 20,000-file base) or a large derived file it renders never stops the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response

from bkn_common.contracts.openapi_errors import OpenApiCode, OpenApiError
from bkn_common.framework.http import json_response, request_language
from knowledge_base.domain import errors
from knowledge_base.service_layer import reading
from knowledge_base.service_layer.ports import RateLimiter
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader
from knowledge_base.service_layer.searching import Searcher, SearchRequest
from knowledge_base.settings import KnowledgeBaseSettings

ReaderFor = Callable[[Request], Awaitable[Reader]]


def _int(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise errors.validation(f"{name} must be an integer", field=name) from None


def _bool(request: Request, name: str) -> bool:
    raw = (request.query_params.get(name) or "false").lower()
    if raw not in ("true", "false", "1", "0"):
        raise errors.validation(f"{name} must be true or false", field=name)
    return raw in ("true", "1")


def reader_dependency(settings: KnowledgeBaseSettings, limiter: RateLimiter) -> ReaderFor:
    async def reader_for(request: Request) -> Reader:
        account = request.headers.get("x-bkn-account")
        if not account:
            raise OpenApiError(OpenApiCode.UNAUTHORIZED, params={"reason": "no caller account"})
        try:
            wait = await limiter.take(account)
        except Exception as exc:
            raise OpenApiError(OpenApiCode.SERVICE_UNAVAILABLE, params={"reason": "rate limiter"},
                               details={"reason": "rate_limiter_unavailable"}) from exc
        if wait is not None:
            raise OpenApiError(OpenApiCode.RATE_LIMITED, params={"retry_after": wait},
                               details={"retryAfterSeconds": wait,
                                        "retryHint": "wait retryAfterSeconds, then send the same request"})
        return Reader(account, settings.public_path, settings.read_max_bytes, settings.max_graph_fanout)

    return reader_for


def router(state: KnowledgeState, searcher: Searcher, reader_for: ReaderFor) -> APIRouter:
    api = APIRouter(prefix="/internal/v1/knowledge-bases/{kb_id}")

    async def read(request: Request, handler: Callable[..., dict[str, Any]], *args: Any) -> Response:
        """``handler(state, reader, *args)`` in a worker thread, its answer as JSON."""
        reader = await reader_for(request)
        return json_response(await asyncio.to_thread(handler, state, reader, *args))

    @api.get("/tree")
    async def tree(kb_id: str, request: Request) -> Response:
        q = request.query_params
        return await read(request, reading.list_tree, kb_id, q.get("parentPath"), q.get("cursor"),
                          _int(request, "limit"), q.get("entryType"))

    @api.get("/files/search")
    async def search(kb_id: str, request: Request) -> Response:
        q = request.query_params
        body = SearchRequest(kb_id, q.get("query") or "", q.get("mode") or "hybrid",
                             _int(request, "graphDepth"), _int(request, "graphFanout"),
                             _bool(request, "rerank"), _int(request, "limit"), q.get("cursor"))
        return json_response(await searcher.search(await reader_for(request), body, request_language(request)))

    @api.get("/files/content")
    async def content_by_path(kb_id: str, request: Request) -> Response:
        q = request.query_params
        return await read(request, reading.read_file, kb_id, q.get("fileId"), q.get("path"))

    @api.get("/files/{file_id}")
    async def get_file(kb_id: str, file_id: str, request: Request) -> Response:
        return await read(request, reading.get_file, kb_id, file_id)

    @api.get("/files/{file_id}/content")
    async def content_by_id(kb_id: str, file_id: str, request: Request) -> Response:
        return await read(request, reading.read_file, kb_id, file_id, None)

    @api.get("/files/{file_id}/related")
    async def related(kb_id: str, file_id: str, request: Request) -> Response:
        q = request.query_params
        return await read(request, reading.read_related, kb_id, file_id, q.get("cursor"), _int(request, "limit"))

    @api.get("/graph/expand")
    async def expand(kb_id: str, request: Request) -> Response:
        q = request.query_params
        file_id = q.get("fileId")
        if not file_id:
            raise errors.validation("fileId is required", field="fileId")
        return await read(request, reading.expand_graph, kb_id, file_id, _int(request, "depth"),
                          _int(request, "fanout"), _int(request, "limit"), q.get("cursor"))

    return api
