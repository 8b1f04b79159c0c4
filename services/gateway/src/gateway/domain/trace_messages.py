"""Trace-related refusals raised by the gateway itself."""

from __future__ import annotations

from bkn_common.contracts.errors import ApiError
from gateway.domain.errors import GatewayCode

UNRECORDED_MARKER = {"available": False, "recorded": False, "code": "trace_core_unavailable"}


def conversation_required() -> ApiError:
    return ApiError(
        GatewayCode.CONVERSATION_REQUIRED,
        400,
        details={"tool": "bkn_start_interaction"},
        extra={"required_action": "create_conversation"},
    )
