"""The upstream Context Loader's argument names on the ontology tools (issue 18 §1): each one
is accepted and does what it says (REST, the real mesh)."""

from __future__ import annotations

from typing import Any

from tests.integration.ontology.helpers import KN, demo_rows, leaf, ok, refused
from tests.support.mesh import RunningMesh


def _ids(page: dict[str, Any], key: str = "knowledge_networks") -> list[str]:
    return [n["id"] for n in page[key]]


def test_list_knowledge_networks_sorts_by_name_and_direction(mesh: RunningMesh) -> None:
    # names: other_network's is not 供应链; order by name either way, reversed by direction
    ascending = ok(mesh.call("list_knowledge_networks", {"sort": "name", "direction": "asc"}))
    descending = ok(mesh.call("list_knowledge_networks", {"sort": "name"}))  # desc by default
    names = [n["name"] for n in ascending["knowledge_networks"]]
    assert names == sorted(names) and _ids(descending) == _ids(ascending)[::-1]
    by_id_desc = ok(mesh.call("list_knowledge_networks", {"sort": "id", "direction": "desc"}))
    assert _ids(by_id_desc) == sorted(_ids(by_id_desc), reverse=True)
    latest = ok(mesh.call("list_knowledge_networks", {"sort": "update_time"}))
    oldest = ok(mesh.call("list_knowledge_networks", {"sort": "update_time", "direction": "asc"}))
    assert latest["total_count"] == 2 and _ids(latest) == _ids(oldest)[::-1]
    refused(mesh.call("list_knowledge_networks", {"sort": "size"}), 400, "invalid_request")


def test_get_object_types_lists_in_pages_without_ids(mesh: RunningMesh) -> None:
    first = ok(mesh.call("get_object_types", {"kn_id": KN, "limit": 3}))
    assert len(first["object_types"]) == 3
    assert (first["total_count"], first["next_offset"]) == (7, 3)
    last = ok(mesh.call("get_object_types", {"kn_id": KN, "offset": 6, "limit": 3}))
    assert len(last["object_types"]) == 1 and "next_offset" not in last
    every = ok(mesh.call("get_object_types", {"kn_id": KN}))
    assert _ids(first, "object_types") + _ids(
        ok(mesh.call("get_object_types", {"kn_id": KN, "offset": 3, "limit": 3})), "object_types"
    ) + _ids(last, "object_types") == _ids(every, "object_types")


def test_search_schema_search_scope_equals_the_flat_flags(mesh: RunningMesh) -> None:
    scoped = ok(mesh.call("search_schema", {"kn_id": KN, "query": "供应商采购总额", "search_scope": {
        "include_object_types": False, "include_relation_types": False,
        "include_action_types": False}}))
    flat = ok(mesh.call("search_schema", {
        "kn_id": KN, "query": "供应商采购总额", "search_object_types": False,
        "search_relation_types": False, "search_action_types": False}))
    assert set(scoped) == {"metrics", "total_matched"} and scoped == flat
    grouped = ok(mesh.call("search_schema", {"kn_id": KN, "query": "订单",
                                             "search_scope": {"concept_groups": ["sales"]}}))
    assert grouped["object_types"] and all(
        "sales" in t["concept_groups"] for t in grouped["object_types"])
    refused(mesh.call("search_schema", {"kn_id": KN, "query": "订单", "search_scope": {
        "include_object_types": False, "include_relation_types": False,
        "include_action_types": False, "include_metric_types": False}}), 400,
        "OntologyQuery.KnowledgeNetwork.InvalidParameter.SearchScope")


def test_search_schema_brief_by_default_and_full_on_request(mesh: RunningMesh) -> None:
    brief = ok(mesh.call("search_schema", {"kn_id": KN, "query": "客户"}))
    customer = next(t for t in brief["object_types"] if t["id"] == "customer")
    assert "primary_keys" not in customer and "display_key" not in customer
    assert all(set(p) == {"name", "type"} for p in customer["properties"])
    full = ok(mesh.call("search_schema", {"kn_id": KN, "query": "客户", "schema_brief": False}))
    customer = next(t for t in full["object_types"] if t["id"] == "customer")
    assert customer["primary_keys"] == ["customer_id"]
    assert any(p.get("display_name") for p in customer["properties"])
    assert len(str(brief)) < len(str(full))


def test_search_schema_include_columns_names_the_physical_columns(mesh: RunningMesh) -> None:
    body = ok(mesh.call("search_schema", {"kn_id": KN, "query": "供应商", "include_columns": True}))
    supplier = next(t for t in body["object_types"] if t["id"] == "supplier")
    assert supplier["data_source"] == {"type": "resource", "id": "res_suppliers"}
    columns = {p["name"]: p["column"] for p in supplier["properties"]}
    assert columns["supplier_id"] == "supplier_code" and columns["name"] == "supplier_name"
    assert columns["city"] == "city"  # unmapped: the column is the property name
    plain = ok(mesh.call("search_schema", {"kn_id": KN, "query": "供应商"}))
    assert all("column" not in p for t in plain["object_types"] for p in t["properties"])


def test_search_schema_rerank_puts_connecting_relations_first(mesh: RunningMesh) -> None:
    body = {"kn_id": KN, "query": "供应商 采购订单 母公司 关系", "max_concepts": 30}
    reranked = ok(mesh.call("search_schema", body))
    plain = ok(mesh.call("search_schema", {**body, "enable_rerank": False}))
    matched = {t["id"] for t in reranked["object_types"]}

    def ends(r: dict[str, Any]) -> int:
        return (r["source_object_type_id"] in matched) + (r["target_object_type_id"] in matched)

    assert [ends(r) for r in reranked["relation_types"]] == sorted(
        (ends(r) for r in reranked["relation_types"]), reverse=True)
    scores = [r["score"] for r in plain["relation_types"]]
    assert scores == sorted(scores, reverse=True)
    assert sorted(r["id"] for r in plain["relation_types"]) == sorted(
        r["id"] for r in reranked["relation_types"])


def test_query_object_instance_filters_are_an_and_condition(mesh: RunningMesh) -> None:
    filters = [{"field": "region", "op": "==", "value": "华东"},
               {"field": "rating", "op": ">=", "value": 4}]
    base = {"kn_id": KN, "ot_id": "supplier", "limit": 100}
    shorthand = ok(mesh.call("query_object_instance", {**base, "filters": filters}))
    written = ok(mesh.call("query_object_instance", {**base, "condition": {
        "operation": "and", "sub_conditions": [leaf("region", "==", "华东"),
                                                leaf("rating", ">=", 4)]}}))
    expected = sorted(r["supplier_id"] for r in demo_rows("supplier")
                      if r["region"] == "华东" and r["rating"] >= 4)
    got = sorted(o["_instance_identity"]["supplier_id"] for o in shorthand["objects"])
    assert got == expected and shorthand["objects"] == written["objects"] and expected
    wins = ok(mesh.call("query_object_instance", {
        **base, "filters": filters, "condition": leaf("region", "==", "华北")}))
    assert {o["region"] for o in wins["objects"]} == {"华北"}  # condition wins over filters
    refused(mesh.call("query_object_instance", {**base, "filters": [
        {"field": "region", "op": "~", "value": "x"}]}), 400, "invalid_request")


def test_query_object_instance_search_after_pages_like_the_cursor(mesh: RunningMesh) -> None:
    base = {"kn_id": KN, "ot_id": "material", "limit": 7}
    first = ok(mesh.call("query_object_instance", base))
    assert first["search_after"] == [first["next_cursor"]]
    by_search_after = ok(mesh.call("query_object_instance",
                                   {**base, "search_after": first["search_after"]}))
    by_cursor = ok(mesh.call("query_object_instance", {**base, "cursor": first["next_cursor"]}))
    assert by_search_after["objects"] == by_cursor["objects"]
    seen = {o["_instance_identity"]["material_code"] for o in first["objects"]}
    assert seen.isdisjoint(o["_instance_identity"]["material_code"]
                           for o in by_search_after["objects"])
