"""Turning an HTTP request into a CallContext (authentication, language, hints)."""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request

from bkn_common.contracts.i18n import negotiate_language
from bkn_common.framework.http import request_id
from gateway.domain.context import (
    HOST_CONVERSATION_HEADER,
    INVOCATION_HEADER,
    CallContext,
    validate_invocation_id,
)
from gateway.service_layer.ports import Authentication

PRINCIPAL_STATE = "principal"  # request.state key of a caller its endpoint authenticated already


def call_context(
    request: Request, authenticator: Authentication, transport: Literal["rest", "mcp"]
) -> CallContext:
    principal = getattr(request.state, PRINCIPAL_STATE, None)
    if principal is None:
        principal = authenticator.authenticate(request.headers.get("authorization"))
    return CallContext(
        principal=principal,
        language=negotiate_language(request.headers.get("accept-language")),
        request_id=request_id(request),
        transport=transport,
        invocation_id=validate_invocation_id(request.headers.get(INVOCATION_HEADER)),
        host_conversation_key=request.headers.get(HOST_CONVERSATION_HEADER),
        traceparent=request.headers.get("traceparent"),
        forwarded_host=request.headers.get("x-forwarded-host"),
        forwarded_proto=request.headers.get("x-forwarded-proto"),
    )
