"""MCP over Streamable HTTP: authentication, Origin checks, sessions (the ``SessionStore`` port).

The SDK runs in stateless mode, so no request depends on process memory. Sessions of the
handshake flow are issued here and kept in the session store (Redis): any replica can serve any request of a
session, and a terminated or unknown session answers 404 on every replica. A session's
tools/call and tools/list are single exchanges (mcp_exchange); the 2026-07-28 flow needs no
session at all. Answers are JSON, not one-event SSE streams: no tool sends progress or
log notifications, and a JSON body costs one write instead of a stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from bkn_common.contracts.errors import ApiError
from bkn_common.framework.http import error_response
from gateway.domain.errors import GatewayCode
from gateway.domain.identity import Principal
from gateway.entrypoints.auth import PRINCIPAL_STATE
from gateway.entrypoints.mcp_catalog import Endpoint
from gateway.entrypoints.mcp_exchange import answer, single_exchange
from gateway.service_layer.ports import Authentication, SessionStore
from gateway.settings import GatewaySettings

SESSION_HEADER = "mcp-session-id"
LOCAL_ORIGIN_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def origin_allowed(origin: str | None, allowed: list[str]) -> bool:
    if origin is None or origin in allowed:
        return True
    scheme, _, rest = origin.partition("://")
    host = rest.rsplit(":", 1)[0] if not rest.startswith("[") else rest.split("]")[0] + "]"
    return scheme in ("http", "https") and host in LOCAL_ORIGIN_HOSTS


def _jsonrpc_error(status: int, code: int, message: str) -> Response:
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}, status_code=status)


class McpEndpointApp:
    """ASGI app of one MCP endpoint (``/mcp`` or ``/mcp-compact``)."""

    def __init__(
        self,
        endpoint: Endpoint,
        manager: StreamableHTTPSessionManager,
        sessions: SessionStore,
        authenticator: Authentication,
        settings: GatewaySettings,
    ) -> None:
        self.endpoint = endpoint
        self.manager = manager
        self._sessions = sessions
        self._auth = authenticator
        self._settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        principal = await self._admit(request)
        if isinstance(principal, Response):
            await principal(scope, receive, send)
            return
        setattr(request.state, PRINCIPAL_STATE, principal)  # the tool handlers' call_context reuses it
        session_id = request.headers.get(SESSION_HEADER)
        if request.method == "DELETE":
            ok = (
                session_id is not None
                and await self._sessions.valid(session_id, principal.account, self.endpoint)
                and await self._sessions.terminate(session_id)
            )
            await Response(status_code=200 if ok else 404)(scope, receive, send)
            return
        if session_id is not None and not await self._sessions.valid(session_id, principal.account, self.endpoint):
            await _jsonrpc_error(404, -32001, "Session not found")(scope, receive, send)
            return
        body = await request.body()
        if session_id is not None and (message := single_exchange(request, body)) is not None:
            await (await answer(self.manager.app, request, message))(scope, receive, send)
            return
        new_session = None
        if session_id is None and request.method == "POST" and _is_initialize(body):
            new_session = await self._sessions.create(
                principal.account, self.endpoint, request.headers.get("mcp-protocol-version")
            )
        await self.manager.handle_request(
            scope, _replay(body, receive), _with_session_header(send, new_session)
        )

    async def _admit(self, request: Request) -> Principal | Response:
        """The caller, or the refusal (Origin not allowed: 403; credentials: 401)."""
        origin = request.headers.get("origin")
        if not origin_allowed(origin, self._settings.allowed_origins):
            return error_response(request, ApiError(GatewayCode.ORIGIN_NOT_ALLOWED, 403, params={"origin": origin}))
        try:
            return self._auth.authenticate(request.headers.get("authorization"))
        except ApiError as error:
            response = error_response(request, error)
            response.headers["WWW-Authenticate"] = 'Bearer realm="context-loader"'
            return response


def _is_initialize(body: bytes) -> bool:
    try:
        message = json.loads(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "initialize"


def _replay(body: bytes, original: Receive) -> Receive:
    """Hand the already-read body to the SDK once, then pass the real receive through."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await original()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _with_session_header(send: Send, session_id: str | None) -> Send:
    if session_id is None:
        return send

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            headers.append((b"mcp-session-id", session_id.encode()))
            message = {**message, "headers": headers}
        await send(message)

    return wrapped


def session_manager(server: Any) -> StreamableHTTPSessionManager:
    return StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


@asynccontextmanager
async def running(*managers: StreamableHTTPSessionManager) -> AsyncIterator[None]:
    async with managers[0].run():
        if len(managers) > 1:
            async with running(*managers[1:]):
                yield
        else:
            yield
