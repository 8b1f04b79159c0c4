"""search_capabilities and execute_tool (seed 000).

A ranked search is one call to capability-index: its hits come gated and described (bound?,
lifecycle gate, catalogue text, trimmed input schema) from the index's catalogue state, so a
hit is judged by the same state that ranked it. Membership without a query comes from
tool-executor (the execution factory's own records), so a listing still answers while the
index is down; tool-executor checks everything again before it runs a tool.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain import search_messages as msg
from gateway.domain.context import CallContext
from gateway.domain.errors import GatewayCode
from gateway.domain.inputs.capabilities import ExecuteToolInput, SearchCapabilitiesInput
from gateway.service_layer.deps import Deps

MAX_RECALL = 100


def _ref(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item.get(k) for k in ("capability_type", "capability_id", "owner_id")}


def _key(item: dict[str, Any]) -> tuple[Any, ...]:
    return (item.get("capability_type"), item.get("owner_id"), item.get("capability_id"))


def _entry(resolved: dict[str, Any], indexed: dict[str, Any] | None) -> dict[str, Any]:
    """A result entry: text from the index where present, else from the catalogue."""
    source = indexed or resolved
    entry: dict[str, Any] = {
        "capability_type": resolved["capability_type"],
        "capability_id": resolved["capability_id"],
    }
    if resolved["capability_type"] != "skill":
        entry["owner_id"] = resolved["owner_id"]
    metadata_type = source.get("metadata_type") or resolved.get("metadata_type")
    if resolved["capability_type"] == "function" and metadata_type:
        entry["metadata_type"] = metadata_type
    entry["name"] = source.get("name") or resolved.get("name") or resolved["capability_id"]
    entry["description"] = source.get("description") or resolved.get("description") or ""
    use_rule = source.get("use_rule") or resolved.get("use_rule")
    if use_rule:
        entry["use_rule"] = use_rule
    if resolved["capability_type"] != "skill" and resolved.get("input_schema") is not None:
        entry["input_schema"] = resolved["input_schema"]
    return entry


async def _index(deps: Deps, ctx: CallContext, path: str, body: dict[str, Any]) -> dict[str, Any]:
    try:
        result: dict[str, Any] = await deps.services.capability_index.call(
            "POST", path, json=body, language=ctx.language, request_id=ctx.request_id
        )
        return result
    except ApiError as exc:
        if exc.code != ErrorCode.DEPENDENCY_UNAVAILABLE:
            raise
        raise ApiError(
            GatewayCode.INDEX_UNAVAILABLE, 503,
            params={"reason": "query and metadata_types need the index"}, details=exc.details,
        ) from exc


async def search_capabilities(
    deps: Deps, ctx: CallContext, args: SearchCapabilitiesInput
) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    if (args.query or "").strip() or args.metadata_types:
        return await _ranked(deps, ctx, args)
    return await _mounted(deps, ctx, args)


async def _mounted(deps: Deps, ctx: CallContext, args: SearchCapabilitiesInput) -> dict[str, Any]:
    """No query: membership and order from the bindings; text from the index when it has it."""
    mounted: dict[str, Any] = await deps.services.tool_executor.call(
        "POST", "/internal/v1/capabilities/mounted",
        json={"kn_id": args.kn_id, "types": args.types, "owner_id": args.owner_id, "limit": args.limit},
        language=ctx.language, request_id=ctx.request_id,
    )
    page = mounted["items"]
    indexed: dict[tuple[Any, ...], dict[str, Any]] = {}
    if page:
        try:
            described = await _index(deps, ctx, "/internal/v1/describe", {"refs": [_ref(i) for i in page]})
            indexed = {_key(h): h for h in described["hits"]}
        except ApiError:
            indexed = {}  # the index only adds text here; the catalogue fills in
    total = int(mounted["passing_total"])
    result: dict[str, Any] = {"capabilities": [_entry(i, indexed.get(_key(i))) for i in page],
                              "total_matched": total}
    if not mounted["mounted_total"]:
        result["message"] = msg.message(msg.NO_BINDINGS, ctx.language, kn_id=args.kn_id)
    elif not total:
        key = msg.LIFECYCLE_ONLY if mounted["filtered_total"] else msg.NO_MATCH
        result["message"] = msg.message(key, ctx.language, kn_id=args.kn_id)
    if total > args.limit:
        result["truncated"] = True
        result["message"] = msg.message(msg.TRUNCATED, ctx.language, total=total, limit=args.limit)
    return result


async def _ranked(deps: Deps, ctx: CallContext, args: SearchCapabilitiesInput) -> dict[str, Any]:
    """With a query (or metadata_types): index ranking, then the gate, then one bounded re-recall."""
    body = {
        "kn_id": args.kn_id, "query": args.query, "types": args.types,
        "metadata_types": args.metadata_types, "owner_id": args.owner_id, "resolve": True,
    }
    recall = args.limit
    searched = await _index(deps, ctx, "/internal/v1/search", {**body, "limit": recall})
    total = int(searched["total_matched"])
    kept, gated_out = _gate(searched)
    if len(kept) < args.limit and gated_out and total > recall:
        recall = min(args.limit * 3, MAX_RECALL)
        searched = await _index(deps, ctx, "/internal/v1/search", {**body, "limit": recall})
        kept, gated_out = _gate(searched)
    entries = [_entry(resolved, hit) for hit, resolved in kept[: args.limit]]
    considered = min(total, recall)
    visible_total = total - gated_out
    result: dict[str, Any] = {"capabilities": entries, "total_matched": max(visible_total, len(entries))}
    if not entries:
        if searched.get("mounted") == 0:  # nothing bound: say so, whatever the query
            result["message"] = msg.message(msg.NO_BINDINGS, ctx.language, kn_id=args.kn_id)
        elif total and gated_out == considered:
            result["message"] = msg.message(msg.LIFECYCLE_ONLY, ctx.language)
        else:
            result["message"] = msg.message(msg.NO_MATCH, ctx.language, kn_id=args.kn_id)
    if len(kept) > args.limit or (total > considered and len(kept) >= args.limit):
        result["truncated"] = True
        result["message"] = msg.message(msg.TRUNCATED, ctx.language, total=visible_total, limit=args.limit)
    elif gated_out and total > considered and len(kept) < args.limit:
        result["truncated"] = True
        result["message"] = msg.message(msg.INCOMPLETE, ctx.language, limit=args.limit)
    return result


def _gate(searched: dict[str, Any]) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], int]:
    """Index hits that pass the lifecycle gate (in rank order), and how many it removed."""
    by_key = {_key(i): i for i in searched["resolved"]["items"]}
    kept = []
    removed = 0
    for hit in searched["hits"]:
        item = by_key.get(_key(hit))
        if item is None:
            continue  # a toolbox whose schemas could not be built is skipped
        if item["bound"] and item["gate_passed"]:
            kept.append((hit, item))
        else:
            removed += 1
    return kept, removed


async def execute_tool(deps: Deps, ctx: CallContext, args: ExecuteToolInput) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "execute")
    body = {
        **args.model_dump(),
        "operation_id": ctx.operation_id,
        "receipt_id": ctx.receipt_id,
        "conversation_id": ctx.bkn.conversation_id if ctx.bkn else None,
        "interaction_id": ctx.bkn.interaction_id if ctx.bkn else None,
        "invocation_id": ctx.invocation_id,
    }
    result: dict[str, Any] = await deps.services.tool_executor.call(
        "POST", "/internal/v1/execute", json=body, account=ctx.principal.account,
        language=ctx.language, request_id=ctx.request_id,
    )
    return result


def search_evidence(args: SearchCapabilitiesInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [
        f"capability:{args.kn_id}:{c['capability_type']}:{c.get('owner_id', '')}:{c['capability_id']}"
        for c in data.get("capabilities", [])
    ]
    return {
        "evidence_type": "retrieval",
        "attributes": {
            "tool": "search_capabilities",
            "query_hash": hashlib.sha256((args.query or "").encode()).hexdigest(),
            "candidate_count": len(refs),
            "total_matched": data.get("total_matched"),
            "truncated": bool(data.get("truncated")),
        },
        "source_refs": refs,
    }


def execution_evidence(args: ExecuteToolInput, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "evidence_type": "execution",
        "attributes": {
            "tool": f"{args.toolbox_id}/{args.tool_id}",
            "outcome": data.get("outcome"),
            "status_code": data.get("status_code"),
        },
        "source_refs": [f"execution_receipt:{data.get('receipt_id')}"],
    }
