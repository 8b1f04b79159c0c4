"""HTTP plumbing every service shares: request ids, the error envelope, health probes."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from opentelemetry import baggage, context, trace
from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bkn_common.contracts import json_codec
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language, negotiate_language

log = logging.getLogger(__name__)
REQUEST_ID_HEADER = "bkn-request-id"
ReadinessCheck = Callable[[], Awaitable[bool]]
# probes and the Prometheus scrape: unauthenticated, untraced (kubelet and Prometheus call them)
PROBE_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})


def request_language(request: Request) -> Language:
    return negotiate_language(request.headers.get("accept-language"))


def request_id(request: Request) -> str:
    value = getattr(request.state, "request_id", None)
    return str(value) if value else uuid.uuid4().hex


class RequestIdMiddleware:
    """Reuse the caller's ``bkn-request-id`` (or ``X-Request-Id``) or issue one; echo it back.

    Plain ASGI (no BaseHTTPMiddleware): it sits on every request of every service.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        incoming = (headers.get(b"bkn-request-id") or headers.get(b"x-request-id") or b"").decode("latin-1")
        value = incoming if incoming and len(incoming) <= 128 else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = value

        async def with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"bkn-request-id"]
                message = {**message, "headers": [*kept, (b"bkn-request-id", value.encode("latin-1"))]}
            await send(message)

        await self.app(scope, receive, with_header)


def json_response(data: Any, headers: Mapping[str, str] | None = None) -> Response:
    """``data`` (plain JSON types already) encoded once by :mod:`bkn_common.contracts.json_codec` (orjson,
    every digit of a long integer kept), without FastAPI's validate-and-dump pass over it."""
    return Response(json_codec.dumps(data), media_type="application/json", headers=headers)


def error_response(request: Request, error: ApiError) -> JSONResponse:
    return JSONResponse(
        error.render(request_language(request), request_id(request)),
        status_code=error.status,
        headers={**error.headers, REQUEST_ID_HEADER: request_id(request)},
    )


def validation_error(errors: list[Any]) -> ApiError:
    """Turn pydantic validation errors into the envelope (fields named in details)."""
    fields = []
    for err in errors:
        location = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",))
        fields.append({"field": location, "problem": err.get("msg", ""), "type": err.get("type")})
    reason = "; ".join(f"{f['field']}: {f['problem']}" for f in fields) or "malformed body"
    return ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": reason}, details=fields)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app answers on this path (Starlette's own ``Allow`` names
    only the first route that matched the path)."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.methods and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route.methods
    return sorted(methods)


def routing_error(request: Request, exc: HTTPException) -> ApiError:
    """The router's own refusals in the envelope: an unknown path is 404 ``route_not_found``, a
    known path with another method 405 ``method_not_allowed`` (with its ``Allow`` header)."""
    where = {"method": request.method, "path": request.url.path}
    if exc.status_code == 404:
        return ApiError(ErrorCode.ROUTE_NOT_FOUND, 404, params=where, details=where)
    if exc.status_code == 405:
        allowed = _allowed_methods(request) or [
            method.strip() for method in (exc.headers or {}).get("Allow", "").split(",") if method.strip()]
        allow = ", ".join(allowed)
        return ApiError(ErrorCode.METHOD_NOT_ALLOWED, 405, params={**where, "allowed": allow},
                        details={**where, "allowed": allowed}, headers={"Allow": allow})
    if exc.status_code >= 500:
        return ApiError(ErrorCode.INTERNAL, exc.status_code)
    return ApiError(ErrorCode.INVALID_REQUEST, exc.status_code, params={"reason": exc.detail},
                    headers=exc.headers)


def install_error_handlers(app: FastAPI) -> None:
    """Every refusal of ``app`` leaves in the documented envelope."""

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_response(request, exc)

    async def on_validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(request, validation_error(list(exc.errors())))

    async def on_routing_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_response(request, routing_error(request, exc))

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error on %s", request.url.path)
        return error_response(request, ApiError(ErrorCode.INTERNAL, 500))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(HTTPException, on_routing_error)
    app.add_exception_handler(Exception, on_unexpected)
    app.add_middleware(RequestIdMiddleware)


def health_router(
    checks: Mapping[str, ReadinessCheck],
    progress: Mapping[str, Callable[[], Mapping[str, object]]] | None = None,
) -> APIRouter:
    """``/healthz`` (the process is up) and ``/readyz`` (every dependency check passes;
    ``progress`` adds how far each projection got, e.g. offsets done / total while catching up)."""
    router = APIRouter()

    @router.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @router.get("/readyz")
    async def readyz() -> JSONResponse:
        results = {}
        for name, check in checks.items():
            try:
                results[name] = await check()
            except Exception:
                results[name] = False
        ready = all(results.values())
        body: dict[str, object] = {"status": "ready" if ready else "not_ready", "checks": results}
        if progress:
            body["progress"] = {name: dict(report()) for name, report in progress.items()}
        return JSONResponse(body, status_code=200 if ready else 503)

    return router


class TraceContextMiddleware:
    """A SERVER span per HTTP request, continuing the caller's W3C trace context.

    At the public edge (``edge=True``) the caller's baggage is dropped: internal services
    take provenance ids from baggage, and only the gateway may set them.
    """

    def __init__(self, app: ASGIApp, service_name: str, edge: bool = False) -> None:
        self.app = app
        self._tracer = trace.get_tracer(service_name)
        self._edge = edge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PROBE_PATHS:
            await self.app(scope, receive, send)
            return
        carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        method = scope.get("method", "GET")
        status: dict[str, int] = {}

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        parent = extract(carrier)
        if self._edge:
            parent = baggage.clear(parent)
        token = context.attach(parent)  # the caller's baggage is current while the request runs
        try:
            with self._tracer.start_as_current_span(
                f"{method} {scope['path']}",
                kind=SpanKind.SERVER,
                attributes={"http.request.method": method, "url.path": scope["path"]},
            ) as span:
                await self.app(scope, receive, capture)
                if "code" in status:
                    span.set_attribute("http.response.status_code", status["code"])
        finally:
            context.detach(token)
