"""Per-call context: who calls, in which language, with which provenance hints."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language
from gateway.domain.errors import GatewayCode
from gateway.domain.identity import Principal

INVOCATION_HEADER = "x-openbkn-client-invocation-id"
HOST_CONVERSATION_HEADER = "x-openbkn-host-conversation-key"
INVOCATION_META = "openbkn.ai/client-invocation-id"
HOST_CONVERSATION_META = "openbkn.ai/host-conversation-key"
ResponseFormat = Literal["json", "toon"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = get_args(ResponseFormat)


@dataclass(frozen=True)
class BknContext:
    conversation_id: str
    interaction_id: str


@dataclass
class CallContext:
    principal: Principal
    language: Language
    request_id: str
    transport: Literal["rest", "mcp"]
    invocation_id: str | None = None
    invocation_attempt: int = 0  # earlier calls with the id that were refused before anything ran
    host_conversation_key: str | None = None
    traceparent: str | None = None
    forwarded_host: str | None = None
    forwarded_proto: str | None = None
    bkn: BknContext | None = None
    operation_id: str | None = None
    receipt_id: str | None = None
    response_format: ResponseFormat | None = None
    response_headers: dict[str, str] = field(default_factory=dict)


def correlation(ctx: CallContext) -> str:
    """What trace-recorder keys the call's operation by (with the interaction and the tool): the
    invocation id, so a retry finds the operation of its first try; a retry after a refusal
    before anything ran is a new operation (the refused one is final), named with a space,
    which no invocation id holds."""
    if ctx.invocation_id is None:
        return ctx.request_id
    if ctx.invocation_attempt == 0:
        return ctx.invocation_id
    digest = hashlib.sha256(ctx.invocation_id.encode()).hexdigest()
    return f"attempt {ctx.invocation_attempt} {digest}"


def parse_bkn_context(raw: Any) -> BknContext | None:
    """``None`` or ``{}`` means ad hoc; exactly both ids means managed; anything else is refused."""
    if raw is None or raw == {}:
        return None
    if not isinstance(raw, dict):
        raise _invalid("it must be an object")
    unknown = sorted(set(raw) - {"conversation_id", "interaction_id"})
    if unknown:
        raise _invalid(f"unknown field(s) {', '.join(unknown)}")
    missing = [k for k in ("conversation_id", "interaction_id") if not raw.get(k)]
    if missing:
        raise _invalid(f"missing {', '.join(missing)}")
    if not all(isinstance(raw[k], str) for k in raw):
        raise _invalid("ids must be strings")
    return BknContext(raw["conversation_id"], raw["interaction_id"])


def parse_response_format(raw: Any) -> ResponseFormat | None:
    """The ``response_format`` argument every tool accepts: absent, ``json`` or ``toon``."""
    if raw is None or raw in RESPONSE_FORMATS:
        return raw  # type: ignore[no-any-return]
    raise ApiError(ErrorCode.INVALID_REQUEST, 400,
                   params={"reason": "response_format: must be json or toon"},
                   details=[{"field": "response_format", "problem": "must be json or toon"}])


def validate_invocation_id(value: str | None) -> str | None:
    if value is None:
        return None
    if not value or len(value) > 256 or not all(0x20 < ord(c) < 0x7F for c in value):
        raise ApiError(GatewayCode.INVALID_INVOCATION_ID, 400)
    return value


def _invalid(reason: str) -> ApiError:
    return ApiError(GatewayCode.INVALID_BKN_CONTEXT, 400, params={"reason": reason})
