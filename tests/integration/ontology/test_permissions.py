"""Object-type permissions through the gateway: masked and name-only properties, row filters,
refusals, and permission_guidance in both languages (REST and MCP shapes, the real mesh).

Accounts (see conftest): analyst and service hold the demo's customer grant (contact_phone
masked, credit_limit name only, rows of 华东); viewer holds a shipment grant without
view_detail; dev holds no object-type grant and sees everything.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from tests.integration.ontology.helpers import EN, KN, ZH, demo_rows, leaf, ok, refused
from tests.support.mesh import RunningMesh

DENIED = "OntologyQuery.ObjectType.PermissionDenied"
PROPERTY_DENIED = "OntologyQuery.ObjectType.PropertyPermissionDenied"
EAST = [r for r in demo_rows("customer") if r["region"] == "华东"]


def customers(mesh: RunningMesh, account: str, headers: dict[str, str] | None = None,
              **body: Any) -> httpx.Response:
    return mesh.call("query_object_instance", {"kn_id": KN, "ot_id": "customer", **body},
                     account=account, **(headers or {}))


def test_analyst_sees_masked_name_only_and_filtered_rows(mesh: RunningMesh) -> None:
    body = ok(customers(mesh, "analyst", ZH, limit=10_000, need_total=True))
    assert body["total_count"] == len(EAST) == len(body["objects"])
    assert {o["customer_id"] for o in body["objects"]} == {r["customer_id"] for r in EAST}
    for obj in body["objects"]:
        assert obj["contact_phone"] == "***"
        assert "credit_limit" in obj and obj["credit_limit"] is None
        assert obj["_instance_identity"] == {"customer_id": obj["customer_id"]}
    guidance = body["permission_guidance"]
    assert guidance["resource"] == {"type": "object_type", "id": f"{KN}/customer",
                                    "kn_id": KN, "ot_id": "customer", "name": "客户"}
    assert guidance["shortfalls"] == [
        {"scope": "property_grants", "properties": ["contact_phone", "credit_limit"],
         "rules": {"contact_phone": "masked", "credit_limit": "name_only"}},
        {"scope": "row_filter"},
    ]  # fmt: skip
    message = guidance["message"]
    assert "contact_phone 已脱敏" in message and "credit_limit 只可见字段名" in message
    assert "可能不完整" in message and "等待管理员授权后再重新发起" in message
    url = urlsplit(guidance["request_permission_url"])
    assert url.path == f"/studio/bkn/{KN}/object-types/customer" and not url.netloc
    query = parse_qs(url.query)
    assert query["dialog"] == ["permission"] and query["source"] == ["agent"]
    assert query["properties"] == ["contact_phone,credit_limit"]
    assert "客户" in query["reason"][0]


def test_guidance_speaks_the_request_language(mesh: RunningMesh) -> None:
    guidance = ok(customers(mesh, "analyst", EN))["permission_guidance"]
    message = guidance["message"]
    assert "contact_phone is masked" in message and "may be incomplete" in message
    assert "wait for an administrator to approve it" in message
    raw_reason = guidance["request_permission_url"].split("reason=")[1].split("&")[0]
    assert "%20" in raw_reason and "+" not in raw_reason
    assert unquote(raw_reason).startswith("An agent query on object type 客户")


def test_a_service_account_gets_no_request_link(mesh: RunningMesh) -> None:
    guidance = ok(customers(mesh, "service", ZH))["permission_guidance"]
    assert "request_permission_url" not in guidance
    assert guidance["message"].endswith("请联系管理员授予相应权限。")


def test_only_the_requested_properties_are_considered(mesh: RunningMesh) -> None:
    narrowed = ok(customers(mesh, "analyst", properties=["name", "region"]))
    assert [s["scope"] for s in narrowed["permission_guidance"]["shortfalls"]] == ["row_filter"]
    assert set(narrowed["objects"][0]) == {"name", "region", "_object_type_id",
                                           "_instance_identity"}
    phone = ok(customers(mesh, "analyst", properties=["contact_phone"]))
    shortfalls = phone["permission_guidance"]["shortfalls"]
    assert shortfalls[0]["properties"] == ["contact_phone"]
    assert "properties=contact_phone&" in phone["permission_guidance"]["request_permission_url"]


def test_the_row_filter_is_and_ed_with_the_callers_condition(mesh: RunningMesh) -> None:
    north = ok(customers(mesh, "analyst", condition=leaf("region", "==", "华北"),
                         need_total=True))
    assert north["objects"] == [] and north["total_count"] == 0
    assert "permission_guidance" in north  # the row filter is in force, so it is said
    vip = ok(customers(mesh, "analyst", condition=leaf("vip", "==", True), limit=10_000))
    assert {o["customer_id"] for o in vip["objects"]} == {
        r["customer_id"] for r in EAST if r.get("vip")}


def test_an_empty_result_alone_never_implies_missing_permission(mesh: RunningMesh) -> None:
    body = ok(customers(mesh, "dev", condition=leaf("customer_id", "==", "C-9999")))
    assert body["objects"] == [] and "permission_guidance" not in body
    full = ok(customers(mesh, "dev", limit=10_000))
    assert len(full["objects"]) == len(demo_rows("customer"))
    assert all(o["contact_phone"] not in (None, "***") for o in full["objects"])


def test_filtering_on_a_hidden_property_is_refused(mesh: RunningMesh) -> None:
    body = refused(customers(mesh, "analyst", ZH, condition=leaf("credit_limit", ">", 1)),
                   403, PROPERTY_DENIED)
    assert body["details"] == {"properties": ["credit_limit"]}
    assert body["permission_guidance"]["shortfalls"][0]["properties"] == ["credit_limit"]
    refused(customers(mesh, "analyst", sort=[{"field": "contact_phone"}]), 403, PROPERTY_DENIED)


def test_no_read_grant_is_a_403_with_guidance_at_the_top_level(mesh: RunningMesh) -> None:
    body = refused(mesh.call("query_object_instance", {"kn_id": KN, "ot_id": "shipment"},
                             account="viewer", **ZH), 403, DENIED)
    guidance = body["permission_guidance"]
    assert guidance["shortfalls"] == [{"scope": "grant", "operations": ["view_detail"]}]
    assert guidance["resource"]["name"] == "运单"
    assert "实例查看权限" in guidance["message"]
    assert "operations=view_detail&" in guidance["request_permission_url"]
    assert set(body) >= {"code", "message", "details", "request_id", "permission_guidance"}
    ok(mesh.call("query_object_instance", {"kn_id": KN, "ot_id": "customer"}, account="viewer"))


def test_subgraphs_mask_filter_and_guide(mesh: RunningMesh) -> None:
    path = {"object_types": [{"id": "sales_order", "limit": 10_000},
                             {"id": "customer", "limit": 10_000}],
            "relation_types": [{"relation_type_id": "rel_customer_so"}]}
    body = ok(mesh.call("query_instance_subgraph", {"kn_id": KN, "relation_type_paths": [path]},
                        account="analyst"))
    objects = body["entries"][0]["objects"].values()
    shown = [o for o in objects if o["_object_type_id"] == "customer"]
    assert {o["customer_id"] for o in shown} <= {r["customer_id"] for r in EAST}
    assert {o["contact_phone"] for o in shown} == {"***"}
    assert [g["resource"]["ot_id"] for g in body["permission_guidance"]] == ["customer"]
    refused(mesh.call("query_instance_subgraph", {"kn_id": KN, "relation_type_paths": [{
        "object_types": [{"id": "sales_order"}, {"id": "shipment"}],
        "relation_types": [{"relation_type_id": "rel_so_shipment"}]}]}, account="viewer"),
        403, DENIED)  # fmt: skip
    explored = ok(mesh.call("explore_subgraph", {
        "kn_id": KN, "source_object_type_id": "sales_order", "direction": "forward",
        "path_length": 1, "limit": 30}, account="viewer"))
    assert "shipment" not in {o["_object_type_id"] for o in explored["objects"].values()}
    left_out = explored["permission_guidance"]
    assert [(g["resource"]["ot_id"], g["shortfalls"][0]["scope"]) for g in left_out] == [
        ("shipment", "grant")]
