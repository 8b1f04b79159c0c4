"""Actions: ``get_action_info``, ``execute_action``, ``get_action_execution``,
``list_action_executions``.

``execute_action`` is asynchronous: ontology-query binds the action type to the instances
(refusing unknown instances and missing inputs), the gateway publishes
``action.execution.requested`` with that plan and returns the ``execution_id``; tool-executor
runs it and publishes progress, which ontology-query materializes for
``get_action_execution`` / ``list_action_executions``. The same submission (caller, action
type, targets, parameters) again within :data:`DUPLICATE_WINDOW_SECONDS` is refused with 409.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language
from bkn_common.framework.digest import canonical
from gateway.domain.context import CallContext
from gateway.domain.errors import GatewayCode
from gateway.domain.inputs.actions import (
    ExecuteActionInput,
    GetActionExecutionInput,
    GetActionInfoInput,
    ListActionExecutionsInput,
)
from gateway.service_layer.deps import Deps

DUPLICATE_WINDOW_SECONDS = 60
PENDING_MARKER_SECONDS = 600


# -- action info ----------------------------------------------------------------------------

async def get_action_info(deps: Deps, ctx: CallContext, args: GetActionInfoInput) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    plan = await _plan(deps, ctx, args.kn_id, args.at_id, args.identities(), None)
    action = plan["action_type"]
    tool = await _tool_entry(deps, ctx, args.kn_id, action["toolbox_id"], action["tool_id"])
    identities = [t["identity"] for t in plan["targets"]]
    tool_schema = tool.get("input_schema")
    inputs = {p["name"]: _input_schema(tool_schema, p["name"]) for p in plan["input_parameters"]}
    function = {
        "name": _function_name(action["id"]),
        "description": _describe(action, tool, len(identities), ctx.language),
        "parameters": {
            "type": "object",
            "properties": {
                "kn_id": {"type": "string", "const": args.kn_id},
                "at_id": {"type": "string", "const": action["id"]},
                "_instance_identities": {
                    "type": "array", "const": identities, "default": identities,
                    "description": _text(
                        ctx.language, "预先绑定的目标实例，原样传回。",
                        "The pre-bound target instances; pass them back unchanged."),
                },
                "dynamic_params": {
                    "type": "object",
                    "properties": inputs,
                    "required": [p["name"] for p in plan["input_parameters"] if p["required"]],
                    "additionalProperties": False,
                },
            },
            "required": ["kn_id", "at_id", "_instance_identities", "dynamic_params"],
            "additionalProperties": False,
        },
    }
    return {
        "action_type": action,
        "tool_status": {k: tool.get(k) for k in ("bound", "gate_passed", "gate_reason")},
        "tools": [{"type": "function", "function": function}],
        "calls": [
            {"_instance_identities": [identities[t] for t in call["targets"]],
             "bound_arguments": call["arguments"]}
            for call in plan["calls"]
        ],
        "execute_with": "execute_action",
    }


async def _plan(
    deps: Deps, ctx: CallContext, kn_id: str, at_id: str, identities: list[dict[str, Any]],
    inputs: dict[str, Any] | None,
) -> dict[str, Any]:
    plan: dict[str, Any] = await deps.services.ontology_query.call(
        "POST", "/internal/v1/actions/plan",
        json={"kn_id": kn_id, "action_type_id": at_id, "identities": identities, "inputs": inputs},
        language=ctx.language, request_id=ctx.request_id,
    )
    return plan


async def _tool_entry(
    deps: Deps, ctx: CallContext, kn_id: str, toolbox_id: str, tool_id: str
) -> dict[str, Any]:
    """The bound tool as tool-executor sees it (kind unknown here: ask for both)."""
    refs = [{"capability_type": kind, "capability_id": tool_id, "owner_id": toolbox_id}
            for kind in ("function", "mcp_tool")]
    resolved = await deps.services.tool_executor.call(
        "POST", "/internal/v1/capabilities/resolve", json={"kn_id": kn_id, "refs": refs},
        language=ctx.language, request_id=ctx.request_id,
    )
    items: list[dict[str, Any]] = resolved.get("items", [])
    ranked = sorted(items, key=lambda i: (not i.get("bound"), i.get("name") is None))
    return ranked[0] if ranked else {}


def _input_schema(tool_schema: dict[str, Any] | None, name: str) -> dict[str, Any]:
    """The JSON schema of tool argument ``name`` (an OpenAPI parameter or a body property)."""
    schema = tool_schema or {}
    for param in schema.get("parameters") or []:
        if param.get("name") == name:
            out = dict(param.get("schema") or {})
            if param.get("description"):
                out.setdefault("description", param["description"])
            return out
    body = (((schema.get("request_body") or {}).get("content") or {})
            .get("application/json", {}).get("schema") or {})
    for source in (body, schema):
        prop = (source.get("properties") or {}).get(name)
        if isinstance(prop, dict):
            return dict(prop)
    return {}


def _describe(action: dict[str, Any], tool: dict[str, Any], count: int, language: Language) -> str:
    mode = (_text(language, f"对 {count} 个实例逐个调用一次工具。",
                  f"Calls the tool once per instance ({count} instances).")
            if action["mode"] == "per_instance"
            else _text(language, f"对全部 {count} 个实例只调用一次工具。",
                       f"Calls the tool once for all {count} instances."))
    parts = [f"{action['name']}: {action['description']}".strip(": "), mode]
    if tool.get("use_rule"):
        parts.append(str(tool["use_rule"]))
    parts.append(_text(language, "异步执行：返回 execution_id，用 get_action_execution 查询结果。",
                       "Runs asynchronously: returns an execution_id; follow it with "
                       "get_action_execution."))
    return " ".join(parts)


def _function_name(action_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", action_id)[:64] or "action"


def _text(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh-CN" else en


# -- execution ------------------------------------------------------------------------------

async def execute_action(deps: Deps, ctx: CallContext, args: ExecuteActionInput) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "execute")
    inputs = args.inputs()
    plan = await _plan(deps, ctx, args.kn_id, args.at_id, args.identities(), inputs)
    if deps.events is None:
        raise _kafka_unavailable("no event publisher configured")
    action = plan["action_type"]
    account = ctx.principal.account
    fingerprint = canonical([account, args.kn_id, action["id"],
                             sorted(canonical(t) for t in plan["targets"]), inputs])
    digest = hashlib.sha256(fingerprint.encode()).hexdigest()
    execution_id = "aex_" + uuid.uuid4().hex
    earlier = await deps.actions.claim(digest, execution_id, DUPLICATE_WINDOW_SECONDS)
    if earlier is not None:
        raise ApiError(
            GatewayCode.DUPLICATE_ACTION_SUBMISSION, 409,
            params={"window": DUPLICATE_WINDOW_SECONDS, "execution_id": earlier},
            details={"execution_id": earlier, "window_seconds": DUPLICATE_WINDOW_SECONDS},
        )
    requested_at = datetime.now(UTC)
    event = ev.ActionExecutionRequested(
        execution_id=execution_id, kn_id=args.kn_id, action_type_id=action["id"], caller=account,
        targets=tuple(ev.ActionTarget(ot_id=t["ot_id"], identity=t["identity"])
                      for t in plan["targets"]),
        parameters={"inputs": inputs, "plan": {
            "toolbox_id": action["toolbox_id"], "tool_id": action["tool_id"],
            "mode": action["mode"], "calls": plan["calls"],
            "provenance": {
                "operation_id": ctx.operation_id,
                "conversation_id": ctx.bkn.conversation_id if ctx.bkn else None,
                "interaction_id": ctx.bkn.interaction_id if ctx.bkn else None,
            },
        }},
        requested_at=requested_at,
    )
    try:
        await deps.events.publish(event)
    except Exception as exc:
        await deps.actions.release(digest, execution_id)
        raise _kafka_unavailable(type(exc).__name__) from exc
    accepted = {
        "execution_id": execution_id, "kn_id": args.kn_id, "action_type_id": action["id"],
        "mode": action["mode"], "status": "pending", "target_count": len(plan["targets"]),
        "requested_at": requested_at.isoformat(),
    }
    await deps.actions.mark_pending(execution_id, {
        **accepted, "caller": account, "targets": [t["identity"] for t in plan["targets"]],
        "parameters": inputs}, PENDING_MARKER_SECONDS)
    return accepted


def action_evidence(args: ExecuteActionInput, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "evidence_type": "execution",
        "attributes": {"tool": f"action:{args.at_id}", "execution_id": data.get("execution_id"),
                       "mode": data.get("mode"), "target_count": data.get("target_count")},
        "source_refs": [f"action_execution:{data.get('execution_id')}"],
    }


async def get_action_execution(
    deps: Deps, ctx: CallContext, args: GetActionExecutionInput
) -> dict[str, Any]:
    """The materialized record; just after submission (before ontology-query saw the request)
    the gateway's own pending marker answers instead of a misleading 404."""
    await deps.access.require(ctx, args.kn_id, "view_detail")
    try:
        record: dict[str, Any] = await deps.services.ontology_query.call(
            "POST", "/internal/v1/actions/executions/get",
            json={"kn_id": args.kn_id, "execution_id": args.execution_id},
            language=ctx.language, request_id=ctx.request_id,
        )
        return record
    except ApiError as exc:
        if exc.status != 404:
            raise
        pending = await deps.actions.pending(args.execution_id)
        if pending is None or pending.get("kn_id") != args.kn_id:
            raise
        return {**pending, "success_count": 0, "failed_count": 0, "results": [],
                "updated_at": pending["requested_at"]}


async def list_action_executions(
    deps: Deps, ctx: CallContext, args: ListActionExecutionsInput
) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    page: dict[str, Any] = await deps.services.ontology_query.call(
        "POST", "/internal/v1/actions/executions/list",
        json={"kn_id": args.kn_id, "action_type_id": args.action_filter(),
              "status": args.status, "trigger_type": args.trigger_type,
              "start_time_from": args.start_time_from, "start_time_to": args.start_time_to,
              "limit": args.limit, "offset": args.offset, "search_after": args.search_after},
        language=ctx.language, request_id=ctx.request_id,
    )
    return page




def _kafka_unavailable(reason: str) -> ApiError:
    return ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": "kafka"},
                    details={"dependency": "kafka", "error": reason})
