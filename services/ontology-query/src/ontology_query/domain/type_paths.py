"""Path templates of ``query_instance_subgraph``: validation and edge orientation.

A path lists its nodes (``object_types``, n+1 of them) and its edges (``relation_types``, n
of them); edge i joins node i to node i+1. Whether an edge is walked forward or backward is
decided against the relation type's definition: nodes (source, target) → forward, (target,
source) → backward, anything else → ``INVALID_TYPE_PATH``. A self-referencing relation type
cannot be told apart by its nodes, so it is walked forward unless ``direction: backward``.
``source/target_object_type_id`` on an edge, when given, name the nodes it walks from and to,
and must equal them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ontology_query.domain.conditions import BoundCondition, bind_condition
from ontology_query.domain.errors import (
    DomainError,
    GivenKind,
    QueryErrorCode,
    TypePathError,
    TypePathMismatch,
)
from ontology_query.domain.instances import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    check_limit,
    require_object_type,
)
from ontology_query.domain.model import ObjectType, RelationType
from ontology_query.domain.ordering import Ordering, parse_sort
from ontology_query.domain.store import OntologyStore

EDGE_DIRECTIONS = ("forward", "backward")


@dataclass(frozen=True, slots=True)
class NodeSpec:
    object_type: ObjectType
    condition: BoundCondition | None
    ordering: Ordering
    limit: int


@dataclass(frozen=True, slots=True)
class EdgeSpec:
    relation_type: RelationType
    forward: bool


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    nodes: tuple[NodeSpec, ...]
    edges: tuple[EdgeSpec, ...]
    limit: int


def resolve_type_path(store: OntologyStore, raw: object, path_index: int = 1) -> ResolvedPath:
    """Check one wire path template against the schema (``path_index`` is 1-based)."""
    nodes_raw = raw.get("object_types") if isinstance(raw, Mapping) else None
    edges_raw = raw.get("relation_types") if isinstance(raw, Mapping) else None
    if (
        not isinstance(nodes_raw, list)
        or not isinstance(edges_raw, list)
        or not edges_raw
        or (len(edges_raw) != len(nodes_raw) - 1)
    ):
        raise DomainError(
            QueryErrorCode.INVALID_TYPE_PATH,
            {
                "path_index": path_index,
                "object_type_count": len(nodes_raw) if isinstance(nodes_raw, list) else 0,
                "relation_type_count": len(edges_raw) if isinstance(edges_raw, list) else 0,
                "expected": max(len(nodes_raw) - 1, 1) if isinstance(nodes_raw, list) else 1,
            },
            variant="shape",
        )
    assert isinstance(raw, Mapping)
    nodes = tuple(_node(store, node, path_index, i) for i, node in enumerate(nodes_raw))
    edges = tuple(
        _edge(store, edge, nodes[i].object_type.id, nodes[i + 1].object_type.id, path_index, i + 1)
        for i, edge in enumerate(edges_raw)
    )
    limit = check_limit(raw.get("limit"), "limit", default=MAX_LIMIT)
    return ResolvedPath(nodes, edges, limit)


def _node(store: OntologyStore, raw: object, path_index: int, node_index: int) -> NodeSpec:
    where = {"path_index": path_index, "node_index": node_index}
    node: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    object_type = require_object_type(store, node.get("id"), **where)
    try:
        return NodeSpec(
            object_type,
            bind_condition(node.get("condition"), object_type),
            Ordering(object_type, parse_sort(node.get("sort"), object_type)),
            check_limit(node.get("limit"), "object_types.limit", default=DEFAULT_LIMIT),
        )
    except DomainError as error:
        error.details.update(where)
        raise


def _edge(
    store: OntologyStore, raw: object, from_id: str, to_id: str, path_index: int, edge_index: int
) -> EdgeSpec:
    edge: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    rt_id = edge.get("relation_type_id")
    relation_type = store.relation_type(rt_id) if isinstance(rt_id, str) else None
    if relation_type is None:
        raise DomainError(
            QueryErrorCode.UNKNOWN_RELATION_TYPE,
            {"relation_type_id": rt_id, "path_index": path_index, "edge_index": edge_index},
        )
    direction = edge.get("direction")
    if direction is not None and direction not in EDGE_DIRECTIONS:
        raise DomainError(
            QueryErrorCode.INVALID_DIRECTION,
            {"value": direction, "allowed": list(EDGE_DIRECTIONS), "edge_index": edge_index},
        )

    def mismatch(given: tuple[str, str], kind: GivenKind) -> TypePathError:
        required = (from_id, to_id)
        return TypePathError(
            TypePathMismatch(edge_index, relation_type.id, required, given, kind, path_index)
        )

    filled_from, filled_to = edge.get("source_object_type_id"), edge.get("target_object_type_id")
    if (filled_from is not None and filled_from != from_id) or (
        filled_to is not None and filled_to != to_id
    ):
        raise mismatch((str(filled_from or from_id), str(filled_to or to_id)), "filled")
    source, target = relation_type.source_object_type_id, relation_type.target_object_type_id
    nodes = (from_id, to_id)
    if relation_type.is_self_referencing and nodes == (source, target):
        return EdgeSpec(relation_type, forward=direction != "backward")
    if nodes == (source, target):
        if direction == "backward":
            raise mismatch((target, source), "direction")
        return EdgeSpec(relation_type, forward=True)
    if nodes == (target, source):
        if direction == "forward":
            raise mismatch((source, target), "direction")
        return EdgeSpec(relation_type, forward=False)
    raise mismatch((source, target), "definition")
