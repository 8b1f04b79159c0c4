"""query_instance_subgraph and explore_subgraph through the gateway, per seed 004: several path
templates answered in request order, walking relations forward and backward, the direction
rules and their 400s in both languages, exploration bounds, paging over starts, isolated
objects, _instance_identity and TOON (REST, the real mesh)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.ontology.helpers import (
    EN,
    KN,
    ZH,
    demo_links,
    demo_rows,
    leaf,
    ok,
    refused,
)
from tests.support.mesh import RunningMesh

P = "OntologyQuery.KnowledgeNetwork"
TYPE_PATH = f"{P}.InvalidParameter.TypePath"


def subgraph(mesh: RunningMesh, *paths: dict[str, Any], headers: dict[str, str] | None = None,
             account: str = "dev") -> httpx.Response:
    return mesh.call("query_instance_subgraph", {"kn_id": KN, "relation_type_paths": list(paths)},
                     account=account, **(headers or {}))


def path(nodes: list[Any], edges: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "object_types": [n if isinstance(n, dict) else {"id": n} for n in nodes],
        "relation_types": [e if isinstance(e, dict) else {"relation_type_id": e} for e in edges],
        **extra,
    }


def walked(entry: dict[str, Any]) -> list[list[tuple[str, str, str, str]]]:
    return [[(e["relation_type_id"], e["source_id"], e["target_id"], e["direction"]) for e in p]
            for p in entry["relation_paths"]]


def test_several_templates_answer_in_request_order(mesh: RunningMesh) -> None:
    s1 = {"id": "supplier", "condition": leaf("supplier_id", "==", "S-0001")}
    forward = path([s1, {"id": "purchase_order", "limit": 100}], ["rel_supplier_po"])
    backward = path([{"id": "purchase_order", "condition": leaf("po_id", "==", "PO-2024-0017")},
                     "supplier"], ["rel_supplier_po"])
    first, second = ok(subgraph(mesh, forward, backward))["entries"]
    pos = sorted(t for s, t in demo_links("rel_supplier_po") if s == "S-0001")
    assert walked(first) == [[("rel_supplier_po", "S-0001", po, "forward")] for po in pos]
    owner = [s for s, t in demo_links("rel_supplier_po") if t == "PO-2024-0017"]
    assert walked(second) == [[("rel_supplier_po", owner[0], "PO-2024-0017", "backward")]]
    assert first["node_objects"][0] == ["supplier:S-0001"]
    obj = first["objects"]["supplier:S-0001"]
    assert obj["_instance_identity"] == {"supplier_id": "S-0001"} and obj["name"]


def test_a_three_hop_template_with_node_filters(mesh: RunningMesh) -> None:
    template = path(
        [{"id": "customer", "condition": leaf("customer_id", "==", "C-0003")},
         {"id": "sales_order", "limit": 100}, {"id": "shipment", "limit": 100}],
        ["rel_customer_so", "rel_so_shipment"],
    )  # fmt: skip
    entry = ok(subgraph(mesh, template))["entries"][0]
    orders = {t for s, t in demo_links("rel_customer_so") if s == "C-0003"}
    expected = sorted((so, sh) for so, sh in demo_links("rel_so_shipment") if so in orders)
    assert [(p[0][2], p[1][2]) for p in walked(entry)] == expected
    assert all(len(p) == 2 for p in entry["relation_paths"])
    assert entry["current_path_number"] == len(expected)


def test_self_referencing_relation_walks_forward_unless_told_backward(mesh: RunningMesh) -> None:
    parent = {"id": "supplier", "condition": leaf("supplier_id", "==", "S-0001")}
    up = ok(subgraph(mesh, path([parent, "supplier"], ["rel_supplier_parent"])))["entries"][0]
    assert up["relation_paths"] == []  # S-0001 is a parent itself, it has none
    down = ok(subgraph(mesh, path([parent, "supplier"], [
        {"relation_type_id": "rel_supplier_parent", "direction": "backward"}])))["entries"][0]
    children = sorted(s for s, t in demo_links("rel_supplier_parent") if t == "S-0001")
    assert walked(down) == [[("rel_supplier_parent", c, "S-0001", "backward")] for c in children]


def test_edge_mismatch_names_edge_relation_and_endpoints(mesh: RunningMesh) -> None:
    wrong = path(["customer", "sales_order", "shipment"], [
        "rel_customer_so",
        {"relation_type_id": "rel_so_shipment", "source_object_type_id": "shipment",
         "target_object_type_id": "sales_order"},
    ])  # fmt: skip
    zh = refused(subgraph(mesh, wrong, headers=ZH), 400, TYPE_PATH)
    assert zh["message"] == ("第 2 条边 rel_so_shipment 与路径节点不一致：路径要求 "
                             "sales_order → shipment，当前填写 shipment → sales_order")
    assert zh["details"] == {
        "path_index": 1, "edge_index": 2, "relation_type_id": "rel_so_shipment",
        "required": ["sales_order", "shipment"], "given": ["shipment", "sales_order"],
        "given_kind": "filled", "reason": "edge",
    }  # fmt: skip
    en = refused(subgraph(mesh, wrong, headers=EN), 400, TYPE_PATH)
    assert en["message"] == ("edge 2 rel_so_shipment does not match the path nodes: the path "
                             "requires sales_order → shipment, given shipment → sales_order")


def test_nodes_a_relation_does_not_join_and_contradicting_directions(mesh: RunningMesh) -> None:
    unrelated = refused(subgraph(mesh, path(["customer", "warehouse"], ["rel_customer_so"]),
                                 headers=ZH), 400, TYPE_PATH)
    assert unrelated["message"] == ("第 1 条边 rel_customer_so 与路径节点不一致：路径要求 "
                                    "customer → warehouse，关系类定义为 customer → sales_order")
    contradicted = refused(subgraph(mesh, path(["customer", "sales_order"], [
        {"relation_type_id": "rel_customer_so", "direction": "backward"}]), headers=ZH),
        400, TYPE_PATH)  # fmt: skip
    assert contradicted["details"]["given_kind"] == "direction"
    second_path = refused(subgraph(mesh, path(["customer", "sales_order"], ["rel_customer_so"]),
                                   path(["customer", "shipment"], ["rel_so_shipment"])),
                          400, TYPE_PATH)
    assert second_path["details"]["path_index"] == 2


def test_other_template_refusals(mesh: RunningMesh) -> None:
    shape = refused(subgraph(mesh, path(["customer", "sales_order", "shipment"],
                                        ["rel_customer_so"])), 400, TYPE_PATH)
    assert shape["details"]["reason"] == "shape"
    refused(subgraph(mesh, path(["customer", "sales_order"], ["rel_nope"])), 404,
            f"{P}.NotFound.RelationType")
    refused(subgraph(mesh, path(["customer", "invoice"], ["rel_customer_so"])), 404,
            f"{P}.NotFound.ObjectType")
    refused(subgraph(mesh, path(["customer", "sales_order"], [
        {"relation_type_id": "rel_customer_so", "direction": "sideways"}])), 400,
        f"{P}.InvalidParameter.Direction")  # fmt: skip
    refused(subgraph(mesh, path([{"id": "customer", "limit": 0}, "sales_order"],
                                ["rel_customer_so"])), 400, f"{P}.InvalidParameter.Limit")
    refused(subgraph(mesh, path([{"id": "customer", "condition": leaf("name", ">", "x")},
                                 "sales_order"], ["rel_customer_so"])), 400,
            f"{P}.InvalidParameter.OperatorNotAllowed")
    refused(mesh.call("query_instance_subgraph", {"kn_id": KN, "relation_type_paths": []}), 400,
            "invalid_request")


def explore(mesh: RunningMesh, headers: dict[str, str] | None = None,
            **body: Any) -> httpx.Response:
    return mesh.call("explore_subgraph", {"kn_id": KN, **body}, **(headers or {}))


def test_path_length_is_required_and_bounded(mesh: RunningMesh) -> None:
    base = {"source_object_type_id": "supplier", "direction": "forward"}
    for bad in ({}, {"path_length": 0}, {"path_length": 4}):
        body = refused(explore(mesh, ZH, **base, **bad), 400, f"{P}.InvalidParameter.PathLength")
        assert "path_length 必须在 1-3 之间" in body["message"]
    refused(explore(mesh, **base, path_length=1, offset=0, search_after=["S-0001"]), 400,
            f"{P}.InvalidParameter.OffsetAndSearchAfter")
    refused(explore(mesh, source_object_type_id="supplier", direction="up", path_length=1), 400,
            f"{P}.InvalidParameter.Direction")
    refused(explore(mesh, source_object_type_id="invoice", direction="forward", path_length=1),
            404, f"{P}.NotFound.ObjectType")


def test_exploration_returns_paths_objects_isolated_and_timing(mesh: RunningMesh) -> None:
    body = ok(explore(mesh, source_object_type_id="supplier", direction="forward",
                      path_length=1, limit=10_000))
    with_orders = {s for s, _ in demo_links("rel_supplier_po")}
    with_parent = {s for s, _ in demo_links("rel_supplier_parent")}
    linked = with_orders | with_parent
    every = {r["supplier_id"] for r in demo_rows("supplier")}
    assert {k.split(":")[1] for k in body["isolated_objects"]} == every - linked
    assert body["total_count"] == len(every) and body["search_after"] is None
    expected = len(demo_links("rel_supplier_po")) + len(demo_links("rel_supplier_parent"))
    assert len(body["relation_paths"]) == expected
    assert body["overall_ms"] >= 0
    for key, obj in body["objects"].items():
        ot_id, obj_id = key.split(":", 1)
        assert obj["_object_type_id"] == ot_id and obj_id in obj["_instance_identity"].values()


def test_limit_and_paging_count_start_objects(mesh: RunningMesh) -> None:
    base = {"source_object_type_id": "customer", "direction": "bidirectional", "path_length": 2,
            "sort": [{"field": "name"}]}
    first = ok(explore(mesh, **base, limit=3))
    second = ok(explore(mesh, **base, limit=3, search_after=first["search_after"]))
    both = ok(explore(mesh, **base, limit=6))

    def starts(body: dict[str, Any]) -> set[str]:
        """Customers are only ever starts here: two hops from one never reach another."""
        return {k for k in (*body["objects"], *body["isolated_objects"])
                if k.startswith("customer:")}

    assert len(starts(first)) == len(starts(second)) == 3
    assert starts(first) | starts(second) == starts(both)
    assert all(len(p) == 2 for p in both["relation_paths"])
    assert first["total_count"] == len(demo_rows("customer"))
    partial = ok(explore(mesh, **base, limit=3, include_incomplete_path=True))
    assert len(partial["relation_paths"]) >= len(first["relation_paths"])


def test_condition_filters_starts_only(mesh: RunningMesh) -> None:
    body = ok(explore(mesh, source_object_type_id="sales_order", direction="forward",
                      path_length=1, condition=leaf("so_id", "==", "SO-2024-0001")))
    assert body["total_count"] == 1
    assert {p[0]["source_id"] for p in body["relation_paths"]} == {"SO-2024-0001"}
    targets = {p[0]["target_object_type_id"] for p in body["relation_paths"]}
    assert targets <= {"material", "warehouse", "shipment"} and len(targets) > 1


def test_toon_on_subgraph_reads(mesh: RunningMesh) -> None:
    with mesh.client() as client:
        response = client.post("/api/agent-retrieval/v1/kn/explore_subgraph",
                               params={"response_format": "toon"},
                               json={"kn_id": KN, "source_object_type_id": "supplier",
                                     "direction": "forward", "path_length": 1, "limit": 3})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/toon")
    assert "relation_paths[" in response.text and "overall_ms:" in response.text
