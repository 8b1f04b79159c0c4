"""Instance and subgraph queries for one caller: the domain engine plus object-type permissions.

Every query first checks its input against the schema exactly as the domain does (so 400s
name the caller's own paths), then applies the caller's policy per object type: a type it may
not read refuses the query (403 with ``permission_guidance``); conditions or sorts on a hidden
property refuse it too (filtering on a masked value would reveal it); a row filter is AND-ed
into the condition of every node of that type; hidden values are masked in every object
returned; and affected results carry ``permission_guidance``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from bkn_common.contracts.errors import ApiError
from ontology_query.domain.conditions import bind_condition
from ontology_query.domain.errors import DomainError, QueryErrorCode
from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.instances import query_object_instance, require_object_type
from ontology_query.domain.model import ObjectType
from ontology_query.domain.results import Subgraph
from ontology_query.domain.subgraph import query_instance_subgraph
from ontology_query.domain.type_paths import resolve_type_path
from ontology_query.service_layer.permissions import Caller, CallerPolicy
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import api_error, network_store
from ontology_query.service_layer.type_policy import ObjectTypePolicy, with_row_filter


def _policies(state: OntologyState, kn_id: str, caller: Caller) -> CallerPolicy:
    """The caller's policies on the network (404 when it does not exist)."""
    return CallerPolicy(state.access, network_store(state, kn_id), caller)


def _logic_params(
    state: OntologyState, kn_id: str, ot_ids: Iterable[str]
) -> dict[str, list[dict[str, Any]]]:
    """Computation parameters of each type's logic properties (``include_logic_params``)."""
    extras = state.schema.get(kn_id)
    out: dict[str, list[dict[str, Any]]] = {}
    for ot_id in dict.fromkeys(ot_ids):
        event = extras.object_types.get(ot_id) if extras else None
        if event is not None and event.logic_properties:
            out[ot_id] = [
                {"name": lp.name, "kind": lp.kind, "parameters": list(lp.parameters)}
                for lp in event.logic_properties
            ]
    return out


def _exclusive(offset: object, cursor: object, cursor_name: str) -> None:
    """Offset and cursor paging are mutually exclusive, even with ``offset: 0``."""
    if offset is not None and cursor is not None:
        raise api_error(DomainError(QueryErrorCode.OFFSET_AND_SEARCH_AFTER,
                                    {"cursor_name": cursor_name}))


def _validated(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except DomainError as exc:
        raise api_error(exc) from exc


def object_instances(
    state: OntologyState,
    kn_id: str,
    caller: Caller,
    *,
    ot_id: str,
    condition: object = None,
    sort: list[Any] | None = None,
    limit: int | None = None,
    offset: int | None = None,
    cursor: str | None = None,
    need_total: bool = False,
    properties: Sequence[str] | None = None,
    include_logic_params: bool = False,
) -> dict[str, Any]:
    """``query_object_instance`` for ``caller``."""
    policies = _policies(state, kn_id, caller)
    object_type = _validated(lambda: require_object_type(policies.store, ot_id))
    _exclusive(offset, cursor, "cursor")
    _validated(lambda: bind_condition(condition, object_type))
    for i, name in enumerate(properties or ()):
        if object_type.get_property(name) is None:
            raise api_error(DomainError(QueryErrorCode.UNKNOWN_FIELD, {
                "object_type_id": ot_id, "field": name, "path": f"properties[{i}]"}))
    policy = policies.check(object_type, condition, sort)
    page = _validated(lambda: query_object_instance(
        policies.store, ot_id, condition=with_row_filter(condition, policy), sort=sort,
        limit=limit, offset=offset, cursor=cursor, need_total=need_total,
    ))  # fmt: skip
    objects = [policy.redact(view.to_json()) for view in page.objects]
    if properties is not None:
        keep = {*properties, "_object_type_id", "_instance_identity"}
        objects = [{k: v for k, v in obj.items() if k in keep} for obj in objects]
    body: dict[str, Any] = {"objects": objects}
    if page.total_count is not None:
        body["total_count"] = page.total_count
    if page.cursor is not None:
        body["next_cursor"] = page.cursor
    if include_logic_params:
        body["logic_params"] = _logic_params(state, kn_id, [ot_id])
    guidance = policies.guidance([ot_id], properties)
    if guidance:
        body["permission_guidance"] = guidance[0]
    return body


def instance_subgraph(
    state: OntologyState,
    kn_id: str,
    caller: Caller,
    relation_type_paths: Sequence[Any],
    *,
    include_logic_params: bool = False,
) -> dict[str, Any]:
    """``query_instance_subgraph`` for ``caller``: one entry per path, in request order."""
    policies = _policies(state, kn_id, caller)
    resolved = _validated(lambda: [
        resolve_type_path(policies.store, raw, i) for i, raw in enumerate(relation_type_paths, 1)
    ])  # fmt: skip
    filtered: list[Any] = []
    node_types: list[str] = []
    for raw, path in zip(relation_type_paths, resolved, strict=True):
        nodes = []
        for raw_node, node in zip(raw["object_types"], path.nodes, strict=True):
            policy = policies.check(node.object_type, raw_node.get("condition"),
                                   raw_node.get("sort"))
            node_types.append(node.object_type.id)
            nodes.append({**dict(raw_node),
                          "condition": with_row_filter(raw_node.get("condition"), policy)})
        filtered.append({**raw, "object_types": nodes})
    graphs = _validated(lambda: query_instance_subgraph(policies.store, filtered))
    entries = []
    for graph in graphs:
        entry = graph.to_json()
        policies.redact_all(entry["objects"])
        entries.append(entry)
    body: dict[str, Any] = {"entries": entries}
    if include_logic_params:
        body["logic_params"] = _logic_params(state, kn_id, node_types)
    guidance = policies.guidance(node_types)
    if guidance:
        body["permission_guidance"] = guidance
    return body


def explore(
    state: OntologyState,
    kn_id: str,
    caller: Caller,
    *,
    source_object_type_id: str,
    direction: str,
    path_length: object,
    condition: object = None,
    concept_groups: Sequence[str] | None = None,
    include_incomplete_path: bool = False,
    limit: int | None = None,
    sort: list[Any] | None = None,
    offset: int | None = None,
    search_after: list[Any] | None = None,
    include_logic_params: bool = False,
) -> dict[str, Any]:
    """``explore_subgraph`` for ``caller``; objects of types it may not see leave no trace."""
    started = time.perf_counter()
    policies = _policies(state, kn_id, caller)
    start_type = _validated(lambda: require_object_type(policies.store, source_object_type_id))
    _exclusive(offset, search_after, "search_after")
    _validated(lambda: bind_condition(condition, start_type))
    policy = policies.check(start_type, condition, sort)
    graph: Subgraph = _validated(lambda: explore_subgraph(
        policies.store, source_object_type_id=source_object_type_id, direction=direction,
        path_length=path_length, condition=with_row_filter(condition, policy),
        concept_groups=concept_groups, include_incomplete_path=include_incomplete_path,
        limit=limit, sort=sort, offset=offset, search_after=search_after,
    ))  # fmt: skip
    visible, left_out = _visible(policies, graph, start_type.id)
    body = visible.to_json()
    policies.redact_all(body["objects"])
    policies.redact_all(body["isolated_objects"])
    types = [start_type.id, *(o["_object_type_id"] for o in body["objects"].values()),
             *sorted(left_out)]
    if include_logic_params:
        body["logic_params"] = _logic_params(state, kn_id, types)
    guidance = policies.guidance(types)
    if guidance:
        body["permission_guidance"] = guidance
    body["overall_ms"] = round((time.perf_counter() - started) * 1000, 3)
    return body


def _visible(policies: CallerPolicy, graph: Subgraph, start_type: str) -> tuple[Subgraph, set[str]]:
    """Drop the paths through objects the caller may not see (types it cannot read, rows its
    filters exclude); starts stay, objects only such paths reached go. Also returns the types
    whose objects were left out."""
    tests: dict[str, Callable[[str], bool]] = {}
    for ot_id, object_type in policies.store.object_types().items():
        policy = policies.policy(ot_id)
        if ot_id == start_type or not policy.restricted:
            continue
        if not policy.readable:
            tests[ot_id] = lambda _id: False
        elif policy.row_filter is not None:
            tests[ot_id] = _row_test(policies, object_type, policy)
    if not tests:
        return graph, set()
    seen: dict[tuple[str, str], bool] = {}
    left_out: set[str] = set()

    def visible(ot_id: str, obj_id: str) -> bool:
        test = tests.get(ot_id)
        if test is None:
            return True
        key = (ot_id, obj_id)
        if key not in seen:
            seen[key] = test(obj_id)
            if not seen[key]:
                left_out.add(ot_id)
        return seen[key]

    paths = [
        p for p in graph.relation_paths
        if all(visible(e.source_object_type_id, e.source_id)
               and visible(e.target_object_type_id, e.target_id) for e in p)
    ]  # fmt: skip
    on_paths = {(e.source_object_type_id, e.source_id) for p in paths for e in p} | {
        (e.target_object_type_id, e.target_id) for p in paths for e in p
    }
    objects = {k: v for k, v in graph.objects.items() if k[0] == start_type or k in on_paths}
    return Subgraph(
        objects=objects, relation_paths=paths, isolated_objects=graph.isolated_objects,
        total_count=graph.total_count, search_after=graph.search_after, truncated=graph.truncated,
    ), left_out  # fmt: skip


def _row_test(
    policies: CallerPolicy, object_type: ObjectType, policy: ObjectTypePolicy
) -> Callable[[str], bool]:
    """The row filter as a test of object ids; a filter that does not fit the type (a 500 for
    the explored type itself) admits nothing here."""
    try:
        admits = policies.row_test(object_type, policy)
    except ApiError:
        return lambda _id: False
    objects = policies.store.objects(object_type.id)

    def test(obj_id: str) -> bool:
        obj = objects.get(obj_id)
        return obj is not None and admits(obj)

    return test


__all__ = ["explore", "instance_subgraph", "object_instances"]
