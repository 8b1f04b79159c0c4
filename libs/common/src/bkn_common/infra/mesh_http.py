"""The HTTP side of service identity (``bkn_common.infra.mesh_auth``): the check every service's
``/internal/`` routes sit behind. The signing hook for httpx clients (clctl, tests) is
``bkn_common.infra.mesh_client.MeshAuth``, apart so that no service imports httpx to serve."""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import negotiate_language
from bkn_common.infra.mesh_auth import (
    INTERNAL_HEADERS,
    INTERNAL_PATH_PREFIX,
    MeshVerifier,
    Refusal,
)

_INTERNAL_HEADER_BYTES = frozenset(h.encode("latin-1") for h in INTERNAL_HEADERS)
_WANTED = frozenset({*_INTERNAL_HEADER_BYTES, b"accept-language"})


class MeshGuard:
    """Refuses every ``/internal/`` request without a valid mesh signature (401, the envelope)
    before the app sees it, so a refused call does nothing. Other paths (``/healthz``,
    ``/readyz``, ``/metrics``, public routes) pass; at the public edge (``edge=True``) they
    pass without any inbound internal header, so an outside caller cannot claim an account
    or a caller identity further in."""

    def __init__(self, app: ASGIApp, verifier: MeshVerifier, edge: bool = False) -> None:
        self.app = app
        self._verifier = verifier
        self._edge = edge

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not scope["path"].startswith(INTERNAL_PATH_PREFIX):
            if self._edge:  # in place: the router's match (scope["route"]) stays visible outside
                scope["headers"] = [(k, v) for k, v in scope["headers"]
                                    if k.lower() not in _INTERNAL_HEADER_BYTES]
            await self.app(scope, receive, send)
            return
        body, replay = await _buffered(receive)
        headers = {k.decode("latin-1"): v.decode("latin-1")
                   for k, v in scope["headers"] if k in _WANTED}
        refusal = self._verifier.refusal(
            scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"),
            body, headers)
        if refusal is not None:
            await _refuse(scope, send, refusal, headers.get("accept-language"))
            return
        scope.setdefault("state", {})["mesh_caller"] = headers.get("x-bkn-caller")
        await self.app(scope, replay, send)


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a ``receive`` that hands it to the app once more."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


async def _refuse(scope: Scope, send: Send, refusal: Refusal, accept_language: str | None) -> None:
    request_id = str(scope.get("state", {}).get("request_id") or "") or None
    error = ApiError(ErrorCode.INTERNAL_UNAUTHENTICATED, 401, params={"reason": refusal},
                     details={"reason": refusal})
    envelope = error.envelope(negotiate_language(accept_language), request_id)
    payload = orjson.dumps(envelope.model_dump(mode="json", exclude_none=True))
    await send({"type": "http.response.start", "status": 401, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
        (b"www-authenticate", b'BKN-Mesh realm="internal"'),
    ]})
    await send({"type": "http.response.body", "body": payload})
