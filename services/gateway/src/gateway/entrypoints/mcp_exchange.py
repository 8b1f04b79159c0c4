"""The session flow's hot requests (tools/call, tools/list) as single exchanges.

In the 2025 session flow the SDK's stateless manager builds, for every POST, a transport,
memory streams, a dispatcher task and a connection, then tears them down again: about
2.5 ms of gateway CPU per call here, more than the whole REST route. Sessions live in Redis
(the SDK keeps none), so each such request already *is* one exchange. Once
:class:`~gateway.entrypoints.mcp_http.McpEndpointApp` has checked the session, a
well-formed ``tools/call`` or ``tools/list`` is served through the SDK's single-exchange
entry (``serve_one``, the one its 2026-07-28 path uses), with the same handlers, the same
error mapping and the JSON answer the manager gives in JSON-response mode. Anything else
(initialize, notifications, other methods, malformed input, GET) is left to the manager,
which validates and answers it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.connection import Connection
from mcp.server.lowlevel.server import Server
from mcp.server.runner import serve_one
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp.shared.message import MessageMetadata, ServerMessageMetadata
from mcp.shared.transport_context import TransportContext
from mcp_types import INTERNAL_ERROR, ErrorData, RequestId
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.responses import Response

from bkn_common.contracts.json_codec import loads
from bkn_common.framework.http import json_response

log = logging.getLogger(__name__)

SINGLE_EXCHANGE_METHODS = frozenset({"tools/call", "tools/list"})
PROTOCOL_HEADER = "mcp-protocol-version"


@dataclass
class _OneRequest:
    """The dispatch context of one request that cannot reach back to the client.

    JSON-response mode has no stream for server-to-client messages, exactly as in the
    SDK's own per-request transport: requests raise, notifications and progress are dropped.
    """

    transport: TransportContext
    request_id: RequestId
    message_metadata: MessageMetadata
    progress_token: Any = None
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)
    can_send_request: bool = field(default=False, init=False)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        return None

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        return None


def single_exchange(request: Request, body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC request to serve as one exchange, or None to leave it to the manager."""
    if request.method != "POST" or request.headers.get(PROTOCOL_HEADER) not in HANDSHAKE_PROTOCOL_VERSIONS:
        return None
    if len(body) > DEFAULT_MAX_REQUEST_BODY_SIZE:  # the manager answers 413
        return None
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return None
    if not check_accept_headers(request)[0]:
        return None
    try:
        message = loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    request_id, params = message.get("id"), message.get("params")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    if message.get("method") not in SINGLE_EXCHANGE_METHODS or not isinstance(params, (dict, type(None))):
        return None
    return message


async def answer(server: Server[Any], request: Request, message: dict[str, Any]) -> Response:
    """Serve ``message`` through the SDK and answer it as JSON (HTTP 200, result or error)."""
    request_id: RequestId = message["id"]
    context = _OneRequest(
        transport=TransportContext(kind="streamable-http", can_send_request=False, headers=request.headers),
        request_id=request_id,
        message_metadata=ServerMessageMetadata(request_context=request),
    )
    connection = Connection.from_envelope(request.headers[PROTOCOL_HEADER], None, None)
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
    try:  # the server has the SDK's default lifespan, whose state is empty
        reply["result"] = await serve_one(
            server, context, message["method"], message.get("params"), connection=connection, lifespan_state={}
        )
    except Exception as exc:
        error = handler_exception_to_error_data(exc)
        if error is None:
            log.exception("MCP %s handler raised", message["method"])
            error = ErrorData(code=INTERNAL_ERROR, message="Internal server error")
        reply["error"] = error.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json_response(reply)
