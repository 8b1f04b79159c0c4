"""The one path every tool call takes, whether it came over REST or MCP.

validate input → decide provenance (managed / ad hoc / not captured / unrecorded) →
idempotency for executions → handler → receipt and evidence.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.propagate import extract
from opentelemetry.trace import Span, StatusCode
from pydantic import BaseModel, ValidationError

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.framework.http import validation_error
from bkn_common.infra.metrics import UNKNOWN_TOOL
from bkn_common.infra.span_scope import (
    CONVERSATION_ATTRIBUTE,
    INTERACTION_ATTRIBUTE,
    OPERATION_ATTRIBUTE,
    provenance_baggage,
)
from gateway.domain.context import CallContext, correlation, parse_bkn_context, parse_response_format
from gateway.domain.errors import GatewayCode
from gateway.domain.trace_messages import UNRECORDED_MARKER, conversation_required
from gateway.service_layer.deps import Deps
from gateway.service_layer.rate_limits import rate_limited
from gateway.service_layer.registry import ToolDefinition

IDEMPOTENT_WAIT_SECONDS = 60.0
tracer = trace.get_tracer("gateway")


@dataclass
class ToolOutcome:
    data: dict[str, Any]
    receipt: dict[str, Any] | None = None
    trace_marker: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


def input_hash(name: str, payload: dict[str, Any]) -> str:
    canonical = json.dumps([name, payload], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def lookup(deps: Deps, ctx: CallContext, name: str) -> ToolDefinition:
    definition = deps.registry.get(name)
    if definition is None or (ctx.transport == "mcp" and not definition.on_mcp):
        raise ApiError(ErrorCode.UNKNOWN_TOOL, 404, params={"tool": name})
    return definition


def parse_input(definition: ToolDefinition, payload: dict[str, Any]) -> BaseModel:
    try:
        return definition.input_model.model_validate(payload)
    except ValidationError as exc:
        raise validation_error(list(exc.errors())) from exc


async def call_tool(deps: Deps, ctx: CallContext, name: str, payload: dict[str, Any]) -> ToolOutcome:
    """Run one tool call inside a span named and attributed per the GenAI and MCP conventions."""
    parent = extract({"traceparent": ctx.traceparent}) if ctx.traceparent else None
    span_name = f"tools/call {name}" if ctx.transport == "mcp" else f"execute_tool {name}"
    started, result = time.perf_counter(), "ok"
    with tracer.start_as_current_span(span_name, context=parent) as span:
        span.set_attribute("gen_ai.operation.name", "execute_tool")
        span.set_attribute("gen_ai.tool.name", name)
        if ctx.transport == "mcp":
            span.set_attribute("mcp.method.name", "tools/call")
        try:
            outcome = await _call_tool(deps, ctx, name, payload)
        except ApiError as exc:
            result = str(exc.code)
            span.set_attribute("error.type", exc.code)
            span.set_status(StatusCode.ERROR)
            definition = deps.registry.get(name)
            if definition is not None and definition.refusal is not None:
                raise definition.refusal(exc, ctx.language) from exc
            raise
        except Exception:
            result = ErrorCode.INTERNAL
            raise
        finally:
            _annotate(span, ctx)
            # a caller's made-up tool name is not a series of its own
            tool = name if deps.registry.get(name) is not None else UNKNOWN_TOOL
            deps.tool_calls.observe(tool, result, time.perf_counter() - started)
        if outcome.receipt:
            span.set_attribute("bkn.receipt_id", str(outcome.receipt.get("receipt_id")))
        return outcome


def _annotate(span: Span, ctx: CallContext) -> None:
    if ctx.bkn is not None:
        span.set_attribute(CONVERSATION_ATTRIBUTE, ctx.bkn.conversation_id)
        span.set_attribute(INTERACTION_ATTRIBUTE, ctx.bkn.interaction_id)
    if ctx.operation_id:
        span.set_attribute(OPERATION_ATTRIBUTE, ctx.operation_id)


async def _call_tool(deps: Deps, ctx: CallContext, name: str, payload: dict[str, Any]) -> ToolOutcome:
    definition = lookup(deps, ctx, name)
    if deps.limits is not None:  # before any work: a refused call does nothing
        admission = await deps.limits.take(ctx.principal.account, definition.name)
        if not admission.admitted:
            raise rate_limited(admission, definition.name)
    payload = dict(payload)
    raw_context = payload.pop("bkn_context", None)
    ctx.response_format = parse_response_format(payload.pop("response_format", None)) or ctx.response_format
    args = parse_input(definition, payload)
    if definition.kind == "lifecycle":
        return ToolOutcome(await definition.handler(deps, ctx, args))
    ctx.bkn = parse_bkn_context(raw_context)
    digest = input_hash(name, args.model_dump(mode="json"))
    if definition.kind == "execution" and ctx.invocation_id:
        return await _once_per_invocation(deps, ctx, definition, args, digest)
    return await _with_provenance(deps, ctx, definition, args, digest)


def _may_have_acted(definition: ToolDefinition, exc: ApiError) -> bool:
    """Whether a failed call may have run the tool: any 5xx but an unavailable dependency, and
    an execution whose request reached tool-executor before the connection broke (a crash
    mid-call: the tool may have run, its receipt is recovered from the journal)."""
    if exc.code != ErrorCode.DEPENDENCY_UNAVAILABLE:
        return True
    details = exc.details if isinstance(exc.details, dict) else {}
    return definition.kind == "execution" and details.get("dependency") == "tool-executor" \
        and bool(details.get("reached"))


async def _once_per_invocation(
    deps: Deps, ctx: CallContext, definition: ToolDefinition, args: BaseModel, digest: str
) -> ToolOutcome:
    """Same invocation id + same input → the original outcome, never a second execution."""
    assert ctx.invocation_id is not None
    account, tool, invocation = ctx.principal.account, definition.name, ctx.invocation_id
    claim = await deps.idempotency.claim(account, tool, invocation, digest)
    if claim.input_hash != digest:
        raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={"invocation_id": invocation})
    if claim.state == "running":
        done = await deps.idempotency.wait_done(account, tool, invocation, IDEMPOTENT_WAIT_SECONDS)
        if done is None:
            raise ApiError(GatewayCode.RECEIPT_PENDING, 409, details={"invocation_id": invocation})
        claim = done
    if claim.state == "failed":  # the first run failed after it may have acted: the same refusal
        failed = claim.error
        raise ApiError(failed["code"], failed["status"], params=failed.get("params"),
                       details={"invocation_id": invocation, "replayed": True})
    if claim.state == "done":
        return ToolOutcome(**claim.result)
    ctx.invocation_attempt = claim.attempt
    try:
        outcome = await _with_provenance(deps, ctx, definition, args, digest)
    except ApiError as exc:
        if exc.status < 500 or not _may_have_acted(definition, exc):
            await deps.idempotency.release(account, tool, invocation)
        else:  # the upstream may have acted: remember the failure, do not run again
            await deps.idempotency.fail(account, tool, invocation, digest, _refusal(exc))
        raise
    await deps.idempotency.complete(account, tool, invocation, digest, outcome.__dict__)
    return outcome



async def _with_provenance(
    deps: Deps, ctx: CallContext, definition: ToolDefinition, args: BaseModel, digest: str
) -> ToolOutcome:
    if ctx.bkn is None:
        managed_required = ctx.transport == "mcp" or definition.kind == "execution"
        if not managed_required:
            return ToolOutcome(await definition.handler(deps, ctx, args))
        policy = await deps.trace.probe(ctx)
        if policy is None:
            return ToolOutcome(await definition.handler(deps, ctx, args), trace_marker=UNRECORDED_MARKER)
        if not policy.get("capture_enabled", True):
            return ToolOutcome(await definition.handler(deps, ctx, args))
        raise conversation_required()
    return await _managed(deps, ctx, definition, args, digest)


async def _managed(
    deps: Deps, ctx: CallContext, definition: ToolDefinition, args: BaseModel, digest: str
) -> ToolOutcome:
    assert ctx.bkn is not None
    try:
        begin = await deps.trace.begin_operation(ctx, {
            "conversation_id": ctx.bkn.conversation_id,
            "interaction_id": ctx.bkn.interaction_id,
            "tool_name": definition.name,
            "input_hash": digest,
            "correlation": correlation(ctx),
        })
    except ApiError as exc:
        if exc.code not in (ErrorCode.DEPENDENCY_UNAVAILABLE, GatewayCode.TRACE_CORE_UNAVAILABLE):
            raise
        data = await definition.handler(deps, ctx, args)
        with contextlib.suppress(Exception):  # Redis down too: the result's marker still tells
            await deps.trace.remember_gap(ctx.bkn.interaction_id)
        return ToolOutcome(data, trace_marker=UNRECORDED_MARKER)
    if begin["status"] == "not_captured":
        return ToolOutcome(await definition.handler(deps, ctx, args))
    receipt_base = {"operation_id": begin["operation_id"], "receipt_id": begin["receipt_id"]}
    if begin["status"] == "replay":
        if begin["receipt_status"] == "failed":  # never a 200 for a call that failed
            raise _replayed_failure(begin, receipt_base)
        receipt = {**receipt_base, "receipt_status": begin["receipt_status"],
                   "evidence_durability": begin.get("evidence_durability", "durable"), "replayed": True}
        return ToolOutcome(begin.get("stored_result") or {}, receipt=receipt)
    ctx.operation_id, ctx.receipt_id = begin["operation_id"], begin["receipt_id"]
    try:
        with provenance_baggage(conversation=ctx.bkn.conversation_id,
                                interaction=ctx.bkn.interaction_id, operation=ctx.operation_id):
            data = await definition.handler(deps, ctx, args)
    except ApiError as exc:
        refusal = _refusal(exc)
        _complete_later(deps, ctx, begin, "failed", {"error": refusal.pop("code"), **refusal}, [])
        raise
    evidence = definition.evidence(args, data) if definition.evidence else {}
    execution_receipt = data.get("receipt_id") if definition.kind == "execution" else None
    receipt = _complete_later(
        deps, ctx, begin, "completed", data, [evidence] if evidence else [], execution_receipt
    )
    return ToolOutcome(data, receipt=receipt)


def _refusal(exc: ApiError) -> dict[str, Any]:
    """A refusal as the invocation record and the failed operation keep it."""
    return {"code": exc.code, "status": exc.status, "params": {k: str(v) for k, v in exc.params.items()}}


def _replayed_failure(begin: dict[str, Any], receipt_base: dict[str, Any]) -> ApiError:
    """The refusal a failed operation ended with, again (its stored code and status; 502 for a
    record without one): e.g. a retry whose invocation record Redis lost."""
    stored = begin.get("stored_result") or {}
    code, status, params = stored.get("error"), stored.get("status"), stored.get("params")
    return ApiError(code if isinstance(code, str) else ErrorCode.INTERNAL,
                    status if isinstance(status, int) else 502,
                    params=params if isinstance(params, dict) else None,
                    details={**receipt_base, "replayed": True})


def _complete_later(
    deps: Deps,
    ctx: CallContext,
    begin: dict[str, Any],
    status: str,
    result: Any,
    evidence: list[dict[str, Any]],
    execution_receipt_id: str | None = None,
) -> dict[str, Any]:
    """Record the receipt and evidence off the caller's path; the receipt says `pending`
    durability until the trace core has them on Kafka (finish waits for them)."""
    assert ctx.bkn is not None
    body = {
        "operation_id": begin["operation_id"],
        "receipt_status": status,
        "result": result,
        "evidence": evidence,
        "execution_receipt_id": execution_receipt_id,
    }
    deps.trace.complete_in_background(ctx, ctx.bkn.interaction_id, body)
    return {"operation_id": begin["operation_id"], "receipt_id": begin["receipt_id"],
            "receipt_status": status, "evidence_durability": "pending"}
