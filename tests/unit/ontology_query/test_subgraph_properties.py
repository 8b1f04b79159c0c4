"""Property tests: both subgraph queries against a naive reference, on random small networks.

The reference below is written from the documented semantics only (no code shared with the
engine): it filters and orders by brute force, enumerates path templates with
``itertools.product`` and explores by scanning the whole edge list at every step.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.model import DataProperty, ObjectInstance, ObjectType, RelationInstance, RelationType
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.subgraph import query_instance_subgraph

Key = tuple[str, str]
Edge = tuple[str, str, str]  # relation type id, source id, target id
Step = tuple[str, str, str, str]  # ... plus direction
GROUPS = ("g1", "g2")


@dataclass(frozen=True)
class Net:
    types: dict[str, tuple[str, ...]]  # object type id -> concept groups
    rts: dict[str, tuple[str, str, tuple[str, ...]]]  # id -> (source, target, groups)
    objects: dict[Key, int | None]  # (type, id) -> value of property k
    edges: frozenset[Edge]

    def store(self, indexed: bool) -> OntologyStore:
        store = OntologyStore()
        for ot, groups in self.types.items():
            schema = (
                DataProperty(name="id"),
                DataProperty(name="k", type="integer", indexed=indexed),
            )
            store.upsert_object_type(
                ObjectType(
                    id=ot, name=ot, primary_keys=("id",), properties=schema, concept_groups=groups
                )
            )
        for rt, (source, target, groups) in self.rts.items():
            store.upsert_relation_type(
                RelationType(id=rt, name=rt, source_object_type_id=source,
                             target_object_type_id=target, concept_groups=groups)
            )  # fmt: skip
        for (ot, oid), k in self.objects.items():
            props: dict[str, Any] = {"id": oid} if k is None else {"id": oid, "k": k}
            store.upsert_object(ObjectInstance(ot, oid, props))
        for rt, source_id, target_id in sorted(self.edges):
            store.upsert_relation(RelationInstance(rt, source_id, target_id))
        return store


@st.composite
def nets(draw: st.DrawFn) -> Net:
    n_types = draw(st.integers(1, 3))
    type_groups = st.sets(st.sampled_from(GROUPS), min_size=1) | st.sets(st.sampled_from(GROUPS))
    types = {f"T{i}": tuple(sorted(draw(type_groups))) for i in range(n_types)}
    rts = {}
    for i in range(draw(st.integers(1, 4))):
        source, target = draw(st.sampled_from(sorted(types))), draw(st.sampled_from(sorted(types)))
        rts[f"R{i}"] = (source, target, tuple(sorted(draw(st.sets(st.sampled_from(GROUPS))))))
    objects: dict[Key, int | None] = {}
    for ot in types:
        for j in range(draw(st.integers(0, 5))):
            objects[(ot, f"{ot.lower()}{j}")] = draw(st.none() | st.integers(0, 3))
    ids = {ot: [oid for t, oid in objects if t == ot] + ["ghost"] for ot in types}
    edges = set()
    for rt, (source, target, _) in rts.items():
        for _ in range(draw(st.integers(0, 8))):
            edges.add((rt, draw(st.sampled_from(ids[source])), draw(st.sampled_from(ids[target]))))
    return Net(types, rts, objects, frozenset(edges))


def conditions() -> st.SearchStrategy[dict[str, Any] | None]:
    def leaf(op: str, value: Any) -> dict[str, Any]:
        return {"field": "k", "operation": op, "value": value, "value_from": "const"}

    return st.one_of(
        st.none(),
        st.builds(leaf, st.sampled_from(["==", ">=", "!="]), st.integers(0, 3)),
        st.builds(leaf, st.just("in"), st.lists(st.integers(0, 3), max_size=2)),
    )


sorts = st.sampled_from([None, [{"field": "k"}], [{"field": "k", "direction": "desc"}]])


# -- reference ---------------------------------------------------------------------------


def ref_matches(k: int | None, cond: dict[str, Any] | None) -> bool:
    if cond is None:
        return True
    op, value = str(cond["operation"]), cond["value"]
    if op == "!=":
        return bool(k != value)
    if k is None:
        return False
    if op == "==":
        return bool(k == value)
    if op == ">=":
        return bool(k >= value)
    return k in value


def ref_order(net: Net, ot: str, keys: list[Key], cond: Any, sort: Any) -> list[Key]:
    """Filter, then order: by k (missing last, either direction), then by id."""
    kept = sorted((key for key in keys if key[0] == ot and ref_matches(net.objects[key], cond)),
                  key=lambda key: key[1])  # fmt: skip
    if not sort:
        return kept
    present = [key for key in kept if net.objects[key] is not None]
    present.sort(key=lambda key: net.objects[key] or 0, reverse=sort[0].get("direction") == "desc")
    return present + [key for key in kept if net.objects[key] is None]


def ref_linked(net: Net, rt: str, a: Key, b: Key, forward: bool) -> bool:
    edge = (rt, a[1], b[1]) if forward else (rt, b[1], a[1])
    return edge in net.edges


def ref_template(net: Net, path: dict[str, Any]) -> tuple[list[list[Step]], list[list[Key]], bool]:
    nodes, edges = path["object_types"], path["relation_types"]
    orient = []
    for i, edge in enumerate(edges):
        source, target, _ = net.rts[edge["relation_type_id"]]
        nodes_pair = (nodes[i]["id"], nodes[i + 1]["id"])
        orient.append(nodes_pair == (source, target) and edge.get("direction") != "backward")
    levels: list[list[Key]] = []
    for i, node in enumerate(nodes):
        pool = list(net.objects)
        if i:
            rt = edges[i - 1]["relation_type_id"]
            pool = [
                b for b in pool if any(ref_linked(net, rt, a, b, orient[i - 1]) for a in levels[-1])
            ]
        ranked = ref_order(net, node["id"], pool, node.get("condition"), node.get("sort"))
        levels.append(ranked[: node.get("limit", 10)])
    found = [
        seq for seq in itertools.product(*levels)
        if len(set(seq)) == len(seq)
        and all(ref_linked(net, e["relation_type_id"], seq[i], seq[i + 1], orient[i])
                for i, e in enumerate(edges))
    ]  # fmt: skip
    limit = path.get("limit", 10_000)
    kept = found[:limit]
    steps = [
        [(e["relation_type_id"], *((s[i][1], s[i + 1][1]) if orient[i] else (s[i + 1][1], s[i][1])),
          "forward" if orient[i] else "backward") for i, e in enumerate(edges)]
        for s in kept
    ]  # fmt: skip
    per_node = [
        [key for key in level if any(s[i] == key for s in kept)] for i, level in enumerate(levels)
    ]
    return steps, per_node, len(found) > limit


def ref_explore(net: Net, args: dict[str, Any]) -> dict[str, Any]:
    start_ot, length = args["source_object_type_id"], args["path_length"]
    dirs = {"forward": ("forward",), "backward": ("backward",)}.get(
        args["direction"], ("forward", "backward")
    )
    wanted = set(args.get("concept_groups") or ())
    ok_types = {start_ot} | {t for t, g in net.types.items() if not wanted or wanted & set(g)}
    ok_rts = {rt for rt, (s, t, g) in net.rts.items()
              if s in ok_types and t in ok_types and (not wanted or wanted & set(g))}  # fmt: skip
    starts = ref_order(net, start_ot, list(net.objects), args.get("condition"), args.get("sort"))
    offset, limit = args.get("offset", 0), args.get("limit", 10)
    page = starts[offset : offset + limit]

    def extensions(path: list[Key]) -> list[tuple[Step, Key]]:
        out = []
        for rt, s, t in net.edges:
            if rt not in ok_rts:
                continue
            source, target, _ = net.rts[rt]
            for direction in dirs:
                here, there = (
                    ((source, s), (target, t))
                    if direction == "forward"
                    else ((target, t), (source, s))
                )
                if path[-1] == here and there in net.objects and there not in path:
                    out.append(((rt, s, t, direction), there))
        return out

    paths: list[list[Step]] = []
    objects: set[Key] = set()
    isolated: set[Key] = set()

    def grow(nodes: list[Key], steps: list[Step]) -> None:
        exts = extensions(nodes) if len(steps) < length else []
        if steps and (len(steps) == length or (args.get("include_incomplete_path") and not exts)):
            paths.append(steps)
            objects.update(nodes)
        for step, nxt in exts:
            grow([*nodes, nxt], [*steps, step])

    for start in page:
        if extensions([start]):
            objects.add(start)
            grow([start], [])
        else:
            isolated.add(start)
    return {"paths": sorted(paths), "objects": objects, "isolated": isolated,
            "total": len(starts), "page": page}  # fmt: skip


# -- properties --------------------------------------------------------------------------


def engine_steps(graph: Any) -> list[list[Step]]:
    return [[(e.relation_type_id, e.source_id, e.target_id, e.direction) for e in p]
            for p in graph.relation_paths]  # fmt: skip


@st.composite
def templates(draw: st.DrawFn, net: Net) -> dict[str, Any]:
    """A valid random path: a random walk over the type graph, either way along relations."""
    current = draw(st.sampled_from(sorted(net.types)))
    nodes: list[dict[str, Any]] = [{"id": current}]
    edges: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        options = [(rt, t, "forward") for rt, (s, t, _) in net.rts.items() if s == current]
        options += [(rt, s, "backward") for rt, (s, t, _) in net.rts.items() if t == current]
        if not options:
            break
        rt, current, direction = draw(st.sampled_from(options))
        edge: dict[str, Any] = {"relation_type_id": rt}
        if draw(st.booleans()) or (direction == "backward" and net.rts[rt][0] == net.rts[rt][1]):
            edge["direction"] = direction
        if draw(st.booleans()):
            edge.update(source_object_type_id=nodes[-1]["id"], target_object_type_id=current)
        edges.append(edge)
        nodes.append({"id": current})
    for node in nodes:
        strategies: dict[str, st.SearchStrategy[Any]] = {
            "condition": conditions(),
            "sort": sorts,
            "limit": st.integers(1, 4),
        }
        for name, strategy in strategies.items():
            if draw(st.booleans()):
                node[name] = draw(strategy)
    path: dict[str, Any] = {"object_types": nodes, "relation_types": edges}
    if draw(st.booleans()):
        path["limit"] = draw(st.integers(1, 12))
    return path


@settings(max_examples=300, deadline=None)
@given(net=nets(), data=st.data())
def test_template_matches_reference(net: Net, data: st.DataObject) -> None:
    paths = [p for p in (data.draw(templates(net)) for _ in range(2)) if p["relation_types"]]
    results = query_instance_subgraph(net.store(indexed=data.draw(st.booleans())), paths)
    assert len(results) == len(paths)
    for path, graph in zip(paths, results, strict=True):
        steps, per_node, truncated = ref_template(net, path)
        assert engine_steps(graph) == steps
        assert graph.node_objects is not None
        assert [list(keys) for keys in graph.node_objects] == per_node
        assert set(graph.objects) == {k for keys in per_node for k in keys}
        assert graph.truncated == truncated


@settings(max_examples=300, deadline=None)
@given(net=nets(), data=st.data())
def test_explore_matches_reference(net: Net, data: st.DataObject) -> None:
    args: dict[str, Any] = {
        "source_object_type_id": data.draw(st.sampled_from(sorted(net.types))),
        "direction": data.draw(st.sampled_from(["forward", "backward", "bidirectional"])),
        "path_length": data.draw(st.integers(1, 3)),
        "include_incomplete_path": data.draw(st.booleans()),
        "condition": data.draw(conditions()),
        "sort": data.draw(sorts),
        "limit": data.draw(st.integers(1, 6)),
        "offset": data.draw(st.integers(0, 3)),
        "concept_groups": data.draw(
            st.none() | st.lists(st.sampled_from(GROUPS), max_size=2) | st.just(["g1"])
        ),
    }
    store = net.store(indexed=data.draw(st.booleans()))
    graph = explore_subgraph(store, **args)
    expected = ref_explore(net, args)
    assert sorted(engine_steps(graph)) == expected["paths"]
    assert set(graph.objects) == expected["objects"]
    assert set(graph.isolated_objects) == expected["isolated"]
    assert graph.total_count == expected["total"]
    assert set(expected["page"]) <= set(graph.objects) | set(graph.isolated_objects)
    # Paging starts by search_after gives the same pages as paging by offset.
    del args["offset"]
    cursor, offset = None, 0
    while True:
        by_cursor = explore_subgraph(store, **args, search_after=cursor)
        assert by_cursor == explore_subgraph(store, **args, offset=offset)
        offset += args["limit"]
        cursor = by_cursor.search_after
        if cursor is None:
            break
    assert offset >= expected["total"] > offset - args["limit"] or expected["total"] == 0
