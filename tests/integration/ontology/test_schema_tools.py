"""Networks and schema through the gateway: list_knowledge_networks, get_kn_detail,
get_object_types, get_relation_types, search_schema (REST, the real mesh)."""

from __future__ import annotations

import yaml

from tests.integration.ontology.helpers import DEMO, EN, KN, ZH, ok, refused
from tests.support.mesh import RunningMesh

SEARCH_SCOPE = "OntologyQuery.KnowledgeNetwork.InvalidParameter.SearchScope"


def test_networks_are_listed_only_where_the_caller_may_view_detail(mesh: RunningMesh) -> None:
    dev = ok(mesh.call("list_knowledge_networks", {}))
    assert [n["id"] for n in dev["knowledge_networks"]] == ["other_network", KN]
    assert dev["total_count"] == 2
    demo = dev["knowledge_networks"][1]
    counts = (demo["object_type_count"], demo["relation_type_count"])
    assert demo["name"] == "供应链" and counts == (7, 8)
    analyst = ok(mesh.call("list_knowledge_networks", {}, account="analyst"))
    assert [n["id"] for n in analyst["knowledge_networks"]] == [KN]
    assert ok(mesh.call("list_knowledge_networks", {}, account="subonly"))["total_count"] == 0


def test_name_pattern_limit_and_offset(mesh: RunningMesh) -> None:
    found = ok(mesh.call("list_knowledge_networks", {"name_pattern": "供应"}))
    assert [n["id"] for n in found["knowledge_networks"]] == [KN]
    assert ok(mesh.call("list_knowledge_networks", {"name_pattern": "SUPPLY"}))["total_count"] == 1
    page = ok(mesh.call("list_knowledge_networks", {"limit": 1, "offset": 1}))
    assert [n["id"] for n in page["knowledge_networks"]] == [KN] and page["total_count"] == 2
    refused(mesh.call("list_knowledge_networks", {"limit": 0}), 400, "invalid_request")


def test_kn_detail_summary_full_and_mounted_counts(mesh: RunningMesh) -> None:
    summary = ok(mesh.call("get_kn_detail", {"kn_id": KN}))
    assert len(summary["object_types"]) == 7 and len(summary["relation_types"]) == 8
    assert set(summary["object_types"][0]) == {"id", "name", "description"}
    assert {g["id"] for g in summary["concept_groups"]} == {"procurement", "sales", "logistics"}
    bindings = yaml.safe_load((DEMO / "bindings.yaml").read_text())["capabilities"]
    expected: dict[str, int] = {}
    for ref in bindings:
        expected[ref["type"]] = expected.get(ref["type"], 0) + 1
    assert summary["mounted_capabilities"] == expected
    full = ok(mesh.call("get_kn_detail", {"kn_id": KN, "detail_level": "full"}))
    customer = next(t for t in full["object_types"] if t["id"] == "customer")
    assert customer["primary_keys"] == ["customer_id"]
    phone = next(p for p in customer["properties"] if p["name"] == "contact_phone")
    assert phone["condition_operations"] == ["==", "like", "exist", "not_exist"]
    assert {a["id"] for a in full["action_types"]} == {"act_settle_po", "act_fx_rates_snapshot"}


def test_kn_detail_needs_view_detail_on_the_network(mesh: RunningMesh) -> None:
    refused(mesh.call("get_kn_detail", {"kn_id": KN}, account="subonly"), 403,
            "network_permission_denied")
    refused(mesh.call("get_kn_detail", {"kn_id": "no_such_network"}), 404, "not_found")
    refused(mesh.call("get_kn_detail", {"kn_id": KN, "detail_level": "huge"}), 400,
            "invalid_request")


def test_object_types_by_id_with_name_fallback(mesh: RunningMesh) -> None:
    body = ok(mesh.call("get_object_types", {"kn_id": KN, "ids": ["客户", "supplier", "发票"]}))
    assert [t["id"] for t in body["object_types"]] == ["customer", "supplier"]
    assert body["missing"] == ["发票"]
    supplier = body["object_types"][1]
    assert [lp["name"] for lp in supplier["logic_properties"]] == [
        "order_count", "purchase_amount", "supplier_score"]
    every = ok(mesh.call("get_object_types", {"kn_id": KN}))
    assert len(every["object_types"]) == 7 and every["missing"] == []


def test_relation_types_by_id_with_name_fallback(mesh: RunningMesh) -> None:
    body = ok(mesh.call("get_relation_types",
                        {"kn_id": KN, "ids": ["rel_customer_so", "母公司", "rel_nope"]}))
    assert [(r["id"], r["source_object_type_id"], r["target_object_type_id"])
            for r in body["relation_types"]] == [
        ("rel_customer_so", "customer", "sales_order"),
        ("rel_supplier_parent", "supplier", "supplier"),
    ]  # fmt: skip
    assert body["missing"] == ["rel_nope"]


def test_search_schema_ranks_chinese_queries_and_returns_schema_only(mesh: RunningMesh) -> None:
    body = ok(mesh.call("search_schema", {"kn_id": KN, "query": "采购订单的金额"}))
    assert body["object_types"][0]["id"] == "purchase_order"
    assert {"relation_types", "action_types", "metrics", "total_matched"} <= set(body)
    assert "PO-2024-0001" not in str(body)  # schema, never instances
    metrics = ok(mesh.call("search_schema", {
        "kn_id": KN, "query": "供应商采购总额", "search_object_types": False,
        "search_relation_types": False, "search_action_types": False}))
    assert set(metrics) == {"metrics", "total_matched"}
    assert metrics["metrics"][0] == {
        "object_type_id": "supplier", "name": "purchase_amount", "display_name": "采购总额",
        "description": metrics["metrics"][0]["description"],
        "parameters": ["start_time", "end_time"], "score": metrics["metrics"][0]["score"],
    }  # fmt: skip
    english = ok(mesh.call("search_schema", {"kn_id": KN, "query": "shipment carrier"}))
    assert english["object_types"][0]["id"] == "shipment"


def test_search_schema_scope_groups_and_limits(mesh: RunningMesh) -> None:
    body = {"kn_id": KN, "query": "订单", "concept_groups": ["sales"]}
    sales = ok(mesh.call("search_schema", body))
    assert "purchase_order" not in {t["id"] for t in sales["object_types"]}
    assert "sales_order" in {t["id"] for t in sales["object_types"]}
    capped = ok(mesh.call("search_schema", {"kn_id": KN, "query": "订单", "max_concepts": 2}))
    kinds = ("object_types", "relation_types", "action_types", "metrics")
    shown = sum(len(capped[k]) for k in kinds)
    assert shown == 2 and capped["total_matched"] > 2
    off = {"search_object_types": False, "search_relation_types": False,
           "search_action_types": False, "search_metrics": False}
    zh = refused(mesh.call("search_schema", {"kn_id": KN, "query": "订单", **off}, **ZH), 400,
                 SEARCH_SCOPE)
    assert "至少要有一个为 true" in zh["message"]
    en = refused(mesh.call("search_schema", {"kn_id": KN, "query": "x", **off}, **EN), 400,
                 SEARCH_SCOPE)
    assert "at least one of" in en["message"]
