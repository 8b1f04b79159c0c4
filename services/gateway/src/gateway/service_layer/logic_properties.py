"""Logic property values: ``get_logic_properties_values``.

ontology-query validates the request, computes the metric values from its store and plans the
operator calls; the gateway runs those through tool-executor's ``/internal/v1/execute`` (the
same checked path as ``execute_tool``: the network's hosted proxy identity, lifecycle gate,
receipt on Kafka). Reading logic properties needs ``view_detail``; requesting an operator
property also needs ``execute``, because it dispatches a real tool call under the caller's
name.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.context import CallContext
from gateway.domain.inputs.logic_properties import GetLogicPropertiesInput
from gateway.service_layer.deps import Deps
from gateway.service_layer.ontology import permission_request

OPERATOR_CONCURRENCY = 8


async def get_logic_properties_values(
    deps: Deps, ctx: CallContext, args: GetLogicPropertiesInput
) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    identities = args.identities()
    if not identities:
        reason = "_instance_identities: give 1-100 instance keys"
        raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": reason},
                       details=[{"field": "_instance_identities", "problem": "required"}])
    body: dict[str, Any] = {
        "kn_id": args.kn_id, "ot_id": args.ot_id, "identities": identities,
        "properties": args.properties, "dynamic_params": args.dynamic_params,
    }
    hint = permission_request(deps, ctx)
    if hint is not None:
        body["permission_request"] = hint
    resolved: dict[str, Any] = await deps.services.ontology_query.call(
        "POST", "/internal/v1/logic-properties/resolve", json=body,
        account=ctx.principal.account, language=ctx.language, request_id=ctx.request_id,
    )
    if any(p["kind"] == "operator" for p in resolved["properties"]):
        await deps.access.require(ctx, args.kn_id, "execute")
    datas: list[dict[str, Any]] = []
    for row in resolved["rows"]:
        if "error" in row:
            datas.append({"_instance_identity": row["_instance_identity"], "_error": row["error"]})
        else:
            datas.append({"_instance_identity": row["_instance_identity"], **row["values"]})
    gate = asyncio.Semaphore(OPERATOR_CONCURRENCY)

    async def run(call: dict[str, Any]) -> None:
        async with gate:
            value, error, receipt_id = await _run_operator(deps, ctx, args.kn_id, call)
        data = datas[call["row"]]
        data[call["property"]] = value
        if error is not None:
            data.setdefault("_errors", {})[call["property"]] = error
        if receipt_id:
            data.setdefault("_receipts", {})[call["property"]] = receipt_id

    await asyncio.gather(*(run(call) for call in resolved["operator_calls"]))
    result: dict[str, Any] = {"object_type_id": resolved["object_type_id"], "datas": datas}
    if "permission_guidance" in resolved:
        result["permission_guidance"] = resolved["permission_guidance"]
    return result


async def _run_operator(
    deps: Deps, ctx: CallContext, kn_id: str, call: dict[str, Any]
) -> tuple[Any, dict[str, Any] | None, str | None]:
    """(value, error, receipt id) of one operator call through tool-executor."""
    body = {
        "kn_id": kn_id, "toolbox_id": call["toolbox_id"], "tool_id": call["tool_id"],
        "arguments": call["arguments"], "operation_id": ctx.operation_id,
        "conversation_id": ctx.bkn.conversation_id if ctx.bkn else None,
        "interaction_id": ctx.bkn.interaction_id if ctx.bkn else None,
    }
    try:
        outcome: dict[str, Any] = await deps.services.tool_executor.call(
            "POST", "/internal/v1/execute", json=body, account=ctx.principal.account,
            language=ctx.language, request_id=ctx.request_id,
        )
    except ApiError as exc:
        envelope = exc.envelope(ctx.language)
        return None, {"code": envelope.code, "message": envelope.message,
                      "details": envelope.details}, None
    status = outcome.get("status_code")
    if outcome.get("outcome") == "succeeded" and (status is None or status < 400):
        return outcome.get("body"), None, outcome.get("receipt_id")
    error = {"code": outcome.get("outcome"), "status_code": status, "body": outcome.get("body")}
    return None, error, outcome.get("receipt_id")


def logic_evidence(args: GetLogicPropertiesInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [f"object:{args.kn_id}:{args.ot_id}:{_identity_key(i)}" for i in args.identities()]
    receipts = [f"execution_receipt:{r}" for row in data.get("datas", [])
                for r in (row.get("_receipts") or {}).values()]
    return {
        "evidence_type": "retrieval",
        "attributes": {"tool": "get_logic_properties_values", "object_type_id": args.ot_id,
                       "properties": list(args.properties), "row_count": len(refs)},
        "source_refs": refs + receipts,
    }


def _identity_key(identity: dict[str, Any]) -> str:
    return "|".join(str(v) for v in identity.values())
