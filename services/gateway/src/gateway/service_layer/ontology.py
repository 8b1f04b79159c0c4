"""Ontology tools: networks, schema, instances and subgraphs, answered by ontology-query.

The gateway checks the network-level ``view_detail`` here; object-type grants (masks, row
filters, refusals with ``permission_guidance``) are applied by ontology-query, which gets the
caller's account and language and — for user accounts of a deployment with a permission
request flow — the Studio route template for ``request_permission_url``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from gateway.domain.context import CallContext
from gateway.domain.inputs.ontology import (
    ExploreSubgraphInput,
    GetObjectTypesInput,
    GetRelationTypesInput,
    KnDetailInput,
    ListKnowledgeNetworksInput,
    QueryInstanceSubgraphInput,
    QueryObjectInstanceInput,
    SearchSchemaInput,
)
from gateway.service_layer.deps import Deps


def permission_request(deps: Deps, ctx: CallContext) -> dict[str, Any] | None:
    """The request-flow hint for ontology-query, or ``None`` when no link may be offered."""
    settings = deps.settings
    template = settings.permission_request_path_template
    if settings.permission_request_disabled or not template or ctx.principal.kind != "user":
        return None
    # Behind an ingress the link is absolute on the host the caller used (X-Forwarded-Host);
    # in-cluster it stays relative to the Studio host.
    host = ctx.forwarded_host
    proto = ctx.forwarded_proto or "https"
    return {"path_template": template, "base_url": f"{proto}://{host}" if host else None}


async def _ask(deps: Deps, ctx: CallContext, path: str, body: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await deps.services.ontology_query.call(
        "POST", f"/internal/v1/{path}", json=body, account=ctx.principal.account,
        language=ctx.language, request_id=ctx.request_id,
    )  # fmt: skip
    return result


def _body(args: BaseModel) -> dict[str, Any]:
    return args.model_dump(mode="json", exclude_none=True)


async def list_knowledge_networks(
    deps: Deps, ctx: CallContext, args: ListKnowledgeNetworksInput
) -> dict[str, Any]:
    """Only the networks the caller may ``view_detail`` (filtered by ontology-query)."""
    return await _ask(deps, ctx, "networks/list", _body(args))


async def get_kn_detail(deps: Deps, ctx: CallContext, args: KnDetailInput) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    return await _ask(deps, ctx, "networks/detail", _body(args))


async def get_object_types(
    deps: Deps, ctx: CallContext, args: GetObjectTypesInput
) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    return await _ask(deps, ctx, "schema/object_types", _body(args))


async def get_relation_types(
    deps: Deps, ctx: CallContext, args: GetRelationTypesInput
) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    return await _ask(deps, ctx, "schema/relation_types", _body(args))


async def search_schema(deps: Deps, ctx: CallContext, args: SearchSchemaInput) -> dict[str, Any]:
    await deps.access.require(ctx, args.kn_id, "view_detail")
    body = {"kn_id": args.kn_id, "query": args.query, "max_concepts": args.max_concepts,
            "schema_brief": args.schema_brief, "enable_rerank": args.enable_rerank,
            "include_columns": args.include_columns, **args.scope()}
    return await _ask(deps, ctx, "schema/search", body)


async def _instance_read(
    deps: Deps, ctx: CallContext, args: QueryObjectInstanceInput | QueryInstanceSubgraphInput
    | ExploreSubgraphInput, path: str,
) -> dict[str, Any]:  # fmt: skip
    await deps.access.require(ctx, args.kn_id, "view_detail")
    body = _body(args)
    hint = permission_request(deps, ctx)
    if hint is not None:
        body["permission_request"] = hint
    return await _ask(deps, ctx, path, body)


async def query_object_instance(
    deps: Deps, ctx: CallContext, args: QueryObjectInstanceInput
) -> dict[str, Any]:
    """``filters`` become an and-condition and ``search_after`` the cursor; the answer's
    ``next_cursor`` comes back as ``search_after`` too."""
    shorthand = args.model_copy(update={
        "condition": args.effective_condition(), "cursor": args.effective_cursor(),
        "filters": None, "search_after": None,
    })
    page = await _instance_read(deps, ctx, shorthand, "instances/query")
    if page.get("next_cursor"):
        page["search_after"] = [page["next_cursor"]]
    return page


async def query_instance_subgraph(
    deps: Deps, ctx: CallContext, args: QueryInstanceSubgraphInput
) -> dict[str, Any]:
    return await _instance_read(deps, ctx, args, "subgraph/query")


async def explore_subgraph(
    deps: Deps, ctx: CallContext, args: ExploreSubgraphInput
) -> dict[str, Any]:
    return await _instance_read(deps, ctx, args, "subgraph/explore")


# -- retrieval evidence: references and counts, never values ------------------------------


def _evidence(tool: str, refs: Iterable[str], **attributes: Any) -> dict[str, Any]:
    source_refs = list(dict.fromkeys(refs))
    return {
        "evidence_type": "retrieval",
        "attributes": {"tool": tool, "candidate_count": len(source_refs), **attributes},
        "source_refs": source_refs,
    }


def _hash(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _instance_ref(kn_id: str, obj: dict[str, Any]) -> str:
    identity = obj.get("_instance_identity") or {}
    key = "|".join(str(v) for v in identity.values())
    return f"object_instance:{kn_id}:{obj.get('_object_type_id')}:{key}"


def _node_refs(kn_id: str, objects: dict[str, Any]) -> list[str]:
    return [f"object_instance:{kn_id}:{key}" for key in objects]


def networks_evidence(args: ListKnowledgeNetworksInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [f"knowledge_network:{n['id']}" for n in data.get("knowledge_networks", [])]
    return _evidence("list_knowledge_networks", refs, total_count=data.get("total_count"))


def detail_evidence(args: KnDetailInput, data: dict[str, Any]) -> dict[str, Any]:
    return _evidence("get_kn_detail", [f"knowledge_network:{args.kn_id}"],
                     detail_level=args.detail_level)


def object_types_evidence(args: GetObjectTypesInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [f"object_type:{args.kn_id}:{t['id']}" for t in data.get("object_types", [])]
    return _evidence("get_object_types", refs, missing_count=len(data.get("missing", [])))


def relation_types_evidence(args: GetRelationTypesInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [f"relation_type:{args.kn_id}:{t['id']}" for t in data.get("relation_types", [])]
    return _evidence("get_relation_types", refs, missing_count=len(data.get("missing", [])))


def schema_evidence(args: SearchSchemaInput, data: dict[str, Any]) -> dict[str, Any]:
    kn = args.kn_id
    refs = [f"object_type:{kn}:{c['id']}" for c in data.get("object_types", [])]
    refs += [f"relation_type:{kn}:{c['id']}" for c in data.get("relation_types", [])]
    refs += [f"action_type:{kn}:{c['id']}" for c in data.get("action_types", [])]
    refs += [f"metric:{kn}:{c['object_type_id']}:{c['name']}" for c in data.get("metrics", [])]
    return _evidence("search_schema", refs, query_hash=_hash(args.query),
                     total_matched=data.get("total_matched"))


def instances_evidence(args: QueryObjectInstanceInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [_instance_ref(args.kn_id, o) for o in data.get("objects", [])]
    return _evidence(
        "query_object_instance", refs, object_type_id=args.ot_id,
        condition_hash=_hash(args.condition), total_count=data.get("total_count"),
        has_more="next_cursor" in data, permission_narrowed="permission_guidance" in data,
    )  # fmt: skip


def subgraph_evidence(args: QueryInstanceSubgraphInput, data: dict[str, Any]) -> dict[str, Any]:
    entries = data.get("entries", [])
    refs = [r for e in entries for r in _node_refs(args.kn_id, e.get("objects", {}))]
    return _evidence(
        "query_instance_subgraph", refs, template_count=len(entries),
        path_count=sum(len(e.get("relation_paths", [])) for e in entries),
        permission_narrowed="permission_guidance" in data,
    )  # fmt: skip


def explore_evidence(args: ExploreSubgraphInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = _node_refs(args.kn_id, data.get("objects", {}))
    refs += _node_refs(args.kn_id, data.get("isolated_objects", {}))
    return _evidence(
        "explore_subgraph", refs, source_object_type_id=args.source_object_type_id,
        path_count=len(data.get("relation_paths", [])), total_count=data.get("total_count"),
        permission_narrowed="permission_guidance" in data,
    )  # fmt: skip
