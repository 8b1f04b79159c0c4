"""bkn_start_interaction / bkn_finish_interaction: the managed lifecycle (trace core).

The public answers use the upstream vocabulary: ``execution_status`` is the turn's own state
(``active`` after start; after finish the outcome, ``cancelled`` spelled ``canceled``) and
``evidence_status`` is ``not_applicable`` / ``complete`` / ``assembling`` / ``partial`` / ``failed``. The trace core's
summary of the turn's operations stays available as ``operations_status``.
"""

from __future__ import annotations

from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.context import CallContext
from gateway.domain.errors import GatewayCode
from gateway.domain.inputs.lifecycle import FinishInteractionInput, StartInteractionInput
from gateway.service_layer.deps import Deps

EXECUTION_STATUS = {"completed": "completed", "failed": "failed", "cancelled": "canceled",
                    "handed_off": "handed_off", "abandoned": "abandoned"}
EVIDENCE_STATUS = {"not_captured": "not_applicable", "complete": "complete", "assembling": "assembling",
                   "partial": "partial", "failed": "failed"}


async def start_interaction(deps: Deps, ctx: CallContext, args: StartInteractionInput) -> dict[str, Any]:
    """Server-issued ids, or an error to retry: ids are never fabricated during an outage."""
    body = {
        **args.model_dump(),
        "host_conversation_key": ctx.host_conversation_key,
        "invocation_id": ctx.invocation_id,
    }
    try:
        started = await deps.trace.start(ctx, body)
    except ApiError as exc:
        if exc.code == ErrorCode.DEPENDENCY_UNAVAILABLE:
            raise ApiError(GatewayCode.TRACE_CORE_UNAVAILABLE, 503, details={"retry": True}) from exc
        raise
    return {**started, "execution_status": "active"}


async def finish_interaction(deps: Deps, ctx: CallContext, args: FinishInteractionInput) -> dict[str, Any]:
    body = args.model_dump(exclude={"partial_reasons"}, exclude_none=True)
    body["invocation_id"] = ctx.invocation_id
    try:
        finished = await deps.trace.finish(ctx, body, reported_gaps=len(set(args.partial_reasons)))
    except ApiError as exc:
        if exc.code == ErrorCode.DEPENDENCY_UNAVAILABLE:
            raise ApiError(GatewayCode.TRACE_CORE_UNAVAILABLE, 503, details={"retry": True}) from exc
        raise
    return public_finish(finished)


def public_finish(finished: dict[str, Any]) -> dict[str, Any]:
    """The trace core's finish result in the public vocabulary."""
    out = dict(finished)
    out["operations_status"] = finished.get("execution_status")
    out["execution_status"] = EXECUTION_STATUS.get(str(finished.get("outcome")), "completed")
    out["evidence_status"] = EVIDENCE_STATUS.get(str(finished.get("evidence_status")), "partial")
    return out
