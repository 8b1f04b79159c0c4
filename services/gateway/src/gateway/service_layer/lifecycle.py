"""bkn_start_interaction / bkn_finish_interaction: the managed lifecycle (trace core)."""

from __future__ import annotations

from typing import Any

from bkn_common.errors import ApiError, ErrorCode
from gateway.domain.context import CallContext
from gateway.domain.errors import GatewayCode
from gateway.domain.inputs.lifecycle import FinishInteractionInput, StartInteractionInput
from gateway.service_layer.deps import Deps


async def start_interaction(deps: Deps, ctx: CallContext, args: StartInteractionInput) -> dict[str, Any]:
    """Server-issued ids, or an error to retry: ids are never fabricated during an outage."""
    body = {
        **args.model_dump(),
        "host_conversation_key": ctx.host_conversation_key,
        "invocation_id": ctx.invocation_id,
    }
    try:
        return await deps.trace.start(ctx, body)
    except ApiError as exc:
        if exc.code == ErrorCode.DEPENDENCY_UNAVAILABLE:
            raise ApiError(GatewayCode.TRACE_CORE_UNAVAILABLE, 503, details={"retry": True}) from exc
        raise


async def finish_interaction(deps: Deps, ctx: CallContext, args: FinishInteractionInput) -> dict[str, Any]:
    try:
        return await deps.trace.finish(ctx, {**args.model_dump(), "invocation_id": ctx.invocation_id})
    except ApiError as exc:
        if exc.code == ErrorCode.DEPENDENCY_UNAVAILABLE:
            raise ApiError(GatewayCode.TRACE_CORE_UNAVAILABLE, 503, details={"retry": True}) from exc
        raise
