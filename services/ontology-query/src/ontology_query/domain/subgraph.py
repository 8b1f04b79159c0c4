"""Subgraph queries: path templates (known topology) here, exploration in :mod:`explore`.

``query_instance_subgraph`` semantics, per path template (see :mod:`type_paths` for how each
edge is oriented):

1. Level 0 is the first ``limit`` instances of node 0 matching its condition, in its sort.
2. Level i+1 is the first ``limit`` instances of node i+1 matching its condition, in its
   sort, among those linked by edge i (walked in its orientation) to some level-i instance.
3. The result paths are the simple sequences (no instance twice) o0 → o1 → … → on with
   every oi in level i and consecutive instances linked by the edge between them, ordered
   by the rank of o0 in level 0, then o1 in level 1, …; at most the path's ``limit`` are
   returned (``truncated`` tells when more existed).
4. ``objects`` holds the instances on the returned paths; ``node_objects[i]`` the keys of
   those at position i, in level order.

Node ``limit`` defaults to 10 and path ``limit`` to 10000. Each template is queried on its
own; the result lists one subgraph per template, in request order. Every template is
validated before any is queried, so an invalid one fails the whole request.
"""

from __future__ import annotations

from collections.abc import Sequence

from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.instances import rank_instances, select_instances
from ontology_query.domain.model import ObjectInstance
from ontology_query.domain.results import NodeKey, ObjectView, PathEdge, RelationPath, Subgraph
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.type_paths import EdgeSpec, ResolvedPath, resolve_type_path

__all__ = ["explore_subgraph", "query_instance_subgraph"]


def query_instance_subgraph(
    store: OntologyStore, relation_type_paths: Sequence[object]
) -> list[Subgraph]:
    """One subgraph per path template, in request order."""
    resolved = [resolve_type_path(store, raw, i) for i, raw in enumerate(relation_type_paths, 1)]
    return [_run(store, path) for path in resolved]


def _levels(store: OntologyStore, path: ResolvedPath) -> list[list[ObjectInstance]]:
    first = path.nodes[0]
    levels = [
        select_instances(
            store, first.object_type, first.condition, first.ordering,
            limit=first.limit, need_total=False,
        ).objects
    ]  # fmt: skip
    for edge, node in zip(path.edges, path.nodes[1:], strict=True):
        objects = store.objects(node.object_type.id)
        reached: dict[str, ObjectInstance] = {}
        for obj in levels[-1]:
            for other in store.neighbours(edge.relation_type.id, obj.id, forward=edge.forward):
                found = objects.get(other)
                if found is not None:
                    reached[other] = found
        levels.append(rank_instances(reached.values(), node.condition, node.ordering, node.limit))
    return levels


def _run(store: OntologyStore, path: ResolvedPath) -> Subgraph:
    levels = _levels(store, path)
    ranks = [{obj.id: rank for rank, obj in enumerate(level)} for level in levels]
    ot_ids = [node.object_type.id for node in path.nodes]
    paths: list[RelationPath] = []
    truncated = False

    def walk(depth: int, obj_id: str, on_path: set[NodeKey], edges: list[PathEdge]) -> bool:
        """Depth-first in level order; False once the path limit stops the walk."""
        nonlocal truncated
        if depth == len(path.edges):
            if len(paths) == path.limit:
                truncated = True
                return False
            paths.append(tuple(edges))
            return True
        edge, rank = path.edges[depth], ranks[depth + 1]
        linked = [
            n for n in store.neighbours(edge.relation_type.id, obj_id, forward=edge.forward)
            if n in rank
        ]  # fmt: skip
        linked.sort(key=rank.__getitem__)
        for other in linked:
            key = (ot_ids[depth + 1], other)
            if key in on_path:
                continue
            on_path.add(key)
            edges.append(_path_edge(edge, obj_id, other))
            going = walk(depth + 1, other, on_path, edges)
            edges.pop()
            on_path.discard(key)
            if not going:
                return False
        return True

    for start in levels[0]:
        if not walk(0, start.id, {(ot_ids[0], start.id)}, []):
            break
    return _assemble(store, path, levels, paths, truncated)


def _path_edge(edge: EdgeSpec, from_id: str, to_id: str) -> PathEdge:
    rt = edge.relation_type
    source_id, target_id = (from_id, to_id) if edge.forward else (to_id, from_id)
    return PathEdge(
        rt.id,
        rt.source_object_type_id,
        source_id,
        rt.target_object_type_id,
        target_id,
        "forward" if edge.forward else "backward",
    )


def _assemble(
    store: OntologyStore,
    path: ResolvedPath,
    levels: list[list[ObjectInstance]],
    paths: list[RelationPath],
    truncated: bool,
) -> Subgraph:
    on_paths: list[set[str]] = [set() for _ in levels]
    for relation_path in paths:
        for depth, edge in enumerate(relation_path):
            from_id, to_id = (
                (edge.source_id, edge.target_id)
                if edge.direction == "forward"
                else (edge.target_id, edge.source_id)
            )
            on_paths[depth].add(from_id)
            on_paths[depth + 1].add(to_id)
    objects: dict[NodeKey, ObjectView] = {}
    node_objects: list[tuple[NodeKey, ...]] = []
    for node, level, used in zip(path.nodes, levels, on_paths, strict=True):
        keys: list[NodeKey] = []
        for obj in level:
            if obj.id in used:
                view = ObjectView.of(obj, node.object_type)
                objects.setdefault(view.key, view)
                keys.append(view.key)
        node_objects.append(tuple(keys))
    return Subgraph(
        objects=objects,
        relation_paths=paths,
        node_objects=tuple(node_objects),
        truncated=truncated,
    )
