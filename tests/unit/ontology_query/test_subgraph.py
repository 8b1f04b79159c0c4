"""Example-based tests of query_instance_subgraph and explore_subgraph on the shop network."""

from __future__ import annotations

from typing import Any

from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.model import RelationInstance, RelationType
from ontology_query.domain.results import Subgraph
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.subgraph import query_instance_subgraph

Walk = list[tuple[str, str, str, str]]


def walks(graph: Subgraph) -> list[Walk]:
    return [
        [(e.relation_type_id, e.source_id, e.target_id, e.direction) for e in path]
        for path in graph.relation_paths
    ]


def path(nodes: list[Any], edges: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "object_types": [n if isinstance(n, dict) else {"id": n} for n in nodes],
        "relation_types": [e if isinstance(e, dict) else {"relation_type_id": e} for e in edges],
        **extra,
    }


def test_template_walks_forward_and_backward(shop: OntologyStore) -> None:
    forward, backward = query_instance_subgraph(
        shop,
        [
            path(["order", "user"], ["rel_order_user"]),
            path(
                [{"id": "user", "condition": {"field": "city", "operation": "==",
                                              "value": "London", "value_from": "const"}},
                 {"id": "order", "sort": [{"field": "amount", "direction": "desc"}]}],
                [{"relation_type_id": "rel_order_user", "source_object_type_id": "user",
                  "target_object_type_id": "order"}],
            ),
        ],
    )  # fmt: skip
    assert walks(forward) == [
        [("rel_order_user", "o1", "u1", "forward")],
        [("rel_order_user", "o2", "u1", "forward")],
        [("rel_order_user", "o3", "u2", "forward")],
        [("rel_order_user", "o4", "u3", "forward")],
    ]
    assert walks(backward) == [
        [("rel_order_user", "o1", "u1", "backward")],
        [("rel_order_user", "o2", "u1", "backward")],
        [("rel_order_user", "o3", "u2", "backward")],
    ]
    assert backward.node_objects == (
        (("user", "u1"), ("user", "u2")),
        (("order", "o3"), ("order", "o1"), ("order", "o2")),
    )
    assert backward.objects[("user", "u1")].identity == {"uid": "u1"}


def test_template_node_limits_and_path_limit(shop: OntologyStore) -> None:
    (graph,) = query_instance_subgraph(
        shop,
        [path([{"id": "user", "limit": 1}, "order", "product"],
              ["rel_order_user", "rel_order_product"])],
    )  # fmt: skip
    assert walks(graph) == [
        [("rel_order_user", "o1", "u1", "backward"), ("rel_order_product", "o1", "p1", "forward")],
        [("rel_order_user", "o1", "u1", "backward"), ("rel_order_product", "o1", "p2", "forward")],
        [("rel_order_user", "o2", "u1", "backward"), ("rel_order_product", "o2", "p2", "forward")],
    ]
    (capped,) = query_instance_subgraph(
        shop,
        [path([{"id": "user", "limit": 1}, "order", "product"],
              ["rel_order_user", "rel_order_product"], limit=2)],
    )  # fmt: skip
    assert len(capped.relation_paths) == 2 and capped.truncated
    assert set(capped.objects) == {
        ("user", "u1"),
        ("order", "o1"),
        ("product", "p1"),
        ("product", "p2"),
    }


def test_self_referencing_template_direction_and_simple_paths(shop: OntologyStore) -> None:
    forward, backward = query_instance_subgraph(
        shop,
        [
            path(["user", "user", "user"], ["follows", "follows"]),
            path(["user", "user"], [{"relation_type_id": "follows", "direction": "backward"}]),
        ],
    )
    assert [[(e.source_id, e.target_id) for e in p] for p in forward.relation_paths] == [
        [("u1", "u2"), ("u2", "u3")],
        [("u2", "u3"), ("u3", "u1")],
        [("u3", "u1"), ("u1", "u2")],
    ]
    assert walks(backward) == [
        [("follows", "u3", "u1", "backward")],
        [("follows", "u1", "u2", "backward")],
        [("follows", "u2", "u3", "backward")],
    ]
    (cycle,) = query_instance_subgraph(
        shop, [path(["user"] * 4, ["follows"] * 3)]
    )  # u1→u2→u3→u1 would repeat u1
    assert cycle.relation_paths == []


def explore(store: OntologyStore, **kwargs: Any) -> Subgraph:
    return explore_subgraph(store, **kwargs)


def test_explore_forward_one_hop(shop: OntologyStore) -> None:
    graph = explore(shop, source_object_type_id="order", direction="forward", path_length=1)
    assert sorted(walks(graph)) == sorted(
        [
            [("rel_order_user", "o1", "u1", "forward")],
            [("rel_order_product", "o1", "p1", "forward")],
            [("rel_order_product", "o1", "p2", "forward")],
            [("rel_order_user", "o2", "u1", "forward")],
            [("rel_order_product", "o2", "p2", "forward")],
            [("rel_order_user", "o3", "u2", "forward")],
            [("rel_order_product", "o3", "p3", "forward")],
            [("rel_order_user", "o4", "u3", "forward")],
        ]
    )
    assert graph.isolated_objects == {} and graph.total_count == 4 and graph.search_after is None


def test_explore_backward_reports_isolated_starts(shop: OntologyStore) -> None:
    graph = explore(shop, source_object_type_id="product", direction="backward", path_length=2)
    assert set(graph.isolated_objects) == {("product", "p9")}
    # backward from a product reaches orders; from an order, backward needs an edge *into*
    # the order, and there is none, so no complete 2-hop path exists.
    assert graph.relation_paths == []
    incomplete = explore(
        shop,
        source_object_type_id="product",
        direction="backward",
        path_length=2,
        include_incomplete_path=True,
    )
    assert sorted(walks(incomplete)) == [
        [("rel_order_product", "o1", "p1", "backward")],
        [("rel_order_product", "o1", "p2", "backward")],
        [("rel_order_product", "o2", "p2", "backward")],
        [("rel_order_product", "o3", "p3", "backward")],
    ]
    assert ("product", "p1") in incomplete.objects and ("order", "o1") in incomplete.objects


def test_explore_bidirectional_incomplete_paths_are_maximal(shop: OntologyStore) -> None:
    graph = explore(
        shop,
        source_object_type_id="order",
        direction="bidirectional",
        path_length=3,
        include_incomplete_path=True,
        condition={"field": "oid", "operation": "==", "value": "o4", "value_from": "const"},
    )
    found = walks(graph)
    assert [("rel_order_user", "o4", "u3", "forward")] not in found  # u3 continues
    assert [
        ("rel_order_user", "o4", "u3", "forward"),
        ("follows", "u3", "u1", "forward"),
        ("rel_order_user", "o1", "u1", "backward"),
    ] in found
    assert all(1 <= len(p) <= 3 for p in found)
    assert graph.total_count == 1


def test_explore_concept_groups_restrict_the_walk(shop: OntologyStore) -> None:
    graph = explore(
        shop,
        source_object_type_id="order",
        direction="forward",
        path_length=1,
        concept_groups=["sales"],
    )
    assert {e.relation_type_id for p in graph.relation_paths for e in p} == {"rel_order_user"}
    none = explore(
        shop, source_object_type_id="order", direction="forward", path_length=1,
        concept_groups=["nothing"],
    )  # fmt: skip
    assert none.relation_paths == [] and len(none.isolated_objects) == 4


def test_explore_pages_count_starts_not_paths(shop: OntologyStore) -> None:
    args: dict[str, Any] = {
        "source_object_type_id": "user",
        "direction": "bidirectional",
        "path_length": 1,
        "limit": 2,
        "sort": [{"field": "age", "direction": "desc"}],
    }
    first = explore(shop, **args)
    assert first.total_count == 5
    starts = {k for k in first.objects if k[0] == "user"} | set(first.isolated_objects)
    assert {("user", "u3"), ("user", "u5")} <= starts
    assert first.search_after == [72, "u5"]
    second = explore(shop, **args, search_after=first.search_after)
    assert second.search_after == [36, "u1"]
    third = explore(shop, **args, search_after=second.search_after)
    assert set(third.isolated_objects) == {("user", "u4")} and third.search_after is None
    assert explore(shop, **args, offset=4).isolated_objects.keys() == {("user", "u4")}


def test_explore_concept_groups_filter_relation_types_but_not_the_start_type(
    shop: OntologyStore,
) -> None:
    shop.upsert_relation_type(
        RelationType(
            id="referred",
            name="referred",
            source_object_type_id="user",
            target_object_type_id="user",
            concept_groups=("marketing",),
        )
    )
    shop.upsert_relation(RelationInstance("referred", "u4", "u5"))
    sales = explore(
        shop, source_object_type_id="user", direction="forward", path_length=1,
        concept_groups=["sales"], limit=10,
    )  # fmt: skip
    assert {e.relation_type_id for p in sales.relation_paths for e in p} == {"follows"}
    assert set(sales.isolated_objects) == {("user", "u4"), ("user", "u5")}
    catalog = explore(
        shop, source_object_type_id="order", direction="forward", path_length=1,
        concept_groups=["catalog"],
    )  # fmt: skip  # order is not in "catalog", but it is the start type
    assert {e.relation_type_id for p in catalog.relation_paths for e in p} == {"rel_order_product"}


def test_explore_path_cap_truncates_without_misreporting_isolation(shop: OntologyStore) -> None:
    graph = explore_subgraph(
        shop,
        source_object_type_id="user",
        direction="bidirectional",
        path_length=1,
        max_paths=2,
    )
    assert len(graph.relation_paths) == 2 and graph.truncated
    # u4 and u5 have no order and follow nobody; u1..u3 are not isolated although the cap
    # stopped their walks early.
    assert set(graph.isolated_objects) == {("user", "u4"), ("user", "u5")}
