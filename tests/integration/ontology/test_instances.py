"""query_object_instance through the gateway: filters, sort, offset and cursor paging, totals,
_instance_identity, every 400 with its code, TOON (REST, the real mesh)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.ontology.helpers import EN, KN, ZH, demo_rows, leaf, ok, refused
from tests.support.mesh import RunningMesh

P = "OntologyQuery.KnowledgeNetwork"


def query(mesh: RunningMesh, account: str = "dev", headers: dict[str, str] | None = None,
          **body: Any) -> httpx.Response:
    return mesh.call("query_object_instance", {"kn_id": KN, **body}, account=account,
                     **(headers or {}))


def test_a_page_carries_instance_identity_and_no_total_unless_asked(mesh: RunningMesh) -> None:
    body = ok(query(mesh, ot_id="purchase_order"))
    assert len(body["objects"]) == 10 and "total_count" not in body and "next_cursor" in body
    first = body["objects"][0]
    assert first["_instance_identity"] == {"po_id": first["po_id"]}
    assert first["_object_type_id"] == "purchase_order"
    assert [o["po_id"] for o in body["objects"]] == sorted(r["po_id"] for r in demo_rows(
        "purchase_order"))[:10]
    counted = ok(query(mesh, ot_id="purchase_order", need_total=True, limit=1))
    assert counted["total_count"] == len(demo_rows("purchase_order"))


def test_indexed_condition_and_sort(mesh: RunningMesh) -> None:
    condition = {"operation": "and", "sub_conditions": [
        leaf("currency", "in", ["USD", "EUR"]), leaf("amount", ">=", 5000)]}
    body = ok(query(mesh, ot_id="purchase_order", condition=condition, need_total=True,
                    sort=[{"field": "amount", "direction": "desc"}], limit=10_000))
    expected = sorted(
        (r for r in demo_rows("purchase_order")
         if r["currency"] in ("USD", "EUR") and r["amount"] >= 5000),
        key=lambda r: (-r["amount"], r["po_id"]),
    )  # fmt: skip
    assert [o["po_id"] for o in body["objects"]] == [r["po_id"] for r in expected]
    assert body["total_count"] == len(expected) and "next_cursor" not in body


def test_cursor_paging_matches_offset_paging(mesh: RunningMesh) -> None:
    sort = [{"field": "order_date", "direction": "desc"}]
    condition = leaf("status", "!=", "已取消")
    everything = ok(query(mesh, ot_id="sales_order", condition=condition, sort=sort,
                          limit=10_000))["objects"]
    seen: list[str] = []
    cursor = None
    while True:
        extra = {"cursor": cursor} if cursor else {}
        page = ok(query(mesh, ot_id="sales_order", condition=condition, sort=sort, limit=7,
                        **extra))
        seen += [o["so_id"] for o in page["objects"]]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == [o["so_id"] for o in everything]
    by_offset = ok(query(mesh, ot_id="sales_order", condition=condition, sort=sort, limit=7,
                         offset=14))
    assert [o["so_id"] for o in by_offset["objects"]] == seen[14:21]


def test_properties_projection(mesh: RunningMesh) -> None:
    body = ok(query(mesh, ot_id="supplier", properties=["name", "rating"], limit=2))
    assert set(body["objects"][0]) == {"name", "rating", "_object_type_id", "_instance_identity"}


def test_operator_not_allowed_names_field_and_operator(mesh: RunningMesh) -> None:
    zh = refused(query(mesh, headers=ZH, ot_id="customer",
                       condition=leaf("contact_phone", "regex", "^138")),
                 400, f"{P}.InvalidParameter.OperatorNotAllowed")
    assert zh["details"]["field"] == "contact_phone" and zh["details"]["operation"] == "regex"
    assert "属性 contact_phone 不支持算子 regex" in zh["message"]
    en = refused(query(mesh, headers=EN, ot_id="customer",
                       condition=leaf("contact_phone", "regex", "^138")),
                 400, f"{P}.InvalidParameter.OperatorNotAllowed")
    assert "operator regex is not allowed on property contact_phone" in en["message"]


def test_every_refusal_has_its_code(mesh: RunningMesh) -> None:
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"ot_id": "customer", "limit": 0}, 400, f"{P}.InvalidParameter.Limit"),
        ({"ot_id": "customer", "limit": 10_001}, 400, f"{P}.InvalidParameter.Limit"),
        ({"ot_id": "customer", "offset": -1}, 400, f"{P}.InvalidParameter.Offset"),
        ({"ot_id": "customer", "offset": 5, "cursor": "abc"}, 400,
         f"{P}.InvalidParameter.OffsetAndSearchAfter"),
        ({"ot_id": "customer", "offset": 0, "cursor": "abc"}, 400,
         f"{P}.InvalidParameter.OffsetAndSearchAfter"),
        ({"ot_id": "customer", "cursor": "!!not-a-cursor"}, 400, f"{P}.InvalidParameter.Cursor"),
        ({"ot_id": "customer", "condition": leaf("nope", "==", 1)}, 400,
         f"{P}.InvalidParameter.UnknownField"),
        ({"ot_id": "customer", "condition": {"operation": "and", "sub_conditions": []}}, 400,
         f"{P}.InvalidParameter.Condition"),
        ({"ot_id": "customer", "condition": leaf("vip", "==", "maybe")}, 400,
         f"{P}.InvalidParameter.Condition"),
        ({"ot_id": "customer", "sort": [{"field": "name", "direction": "up"}]}, 400,
         f"{P}.InvalidParameter.Sort"),
        ({"ot_id": "customer", "properties": ["ghost"]}, 400, f"{P}.InvalidParameter.UnknownField"),
        ({"ot_id": "invoice"}, 404, f"{P}.NotFound.ObjectType"),
        ({"ot_id": "customer", "surprise": 1}, 400, "invalid_request"),
    ]  # fmt: skip
    for body, status, code in cases:
        refused(query(mesh, **body), status, code)


def test_a_cursor_of_another_query_is_refused(mesh: RunningMesh) -> None:
    cursor = ok(query(mesh, ot_id="customer", limit=1))["next_cursor"]
    body = refused(query(mesh, ot_id="customer", limit=1, cursor=cursor,
                         condition=leaf("vip", "==", True)),
                   400, f"{P}.InvalidParameter.Cursor")
    assert body["details"]["reason"] == "mismatch"


def test_toon_is_a_table_and_smaller(mesh: RunningMesh) -> None:
    body = {"kn_id": KN, "ot_id": "purchase_order", "limit": 20}
    with mesh.client() as client:
        toon = client.post("/api/agent-retrieval/v1/kn/query_object_instance",
                           params={"response_format": "toon"}, json=body)
        json_body = client.post("/api/agent-retrieval/v1/kn/query_object_instance", json=body)
    assert toon.status_code == 200
    assert toon.headers["content-type"].startswith("application/toon")
    assert toon.text.startswith("objects[20]{po_id,")
    assert "_instance_identity{po_id}" in toon.text.splitlines()[0]
    assert len(toon.content) < 0.7 * len(json_body.content)


def test_the_caller_needs_view_detail_on_the_network(mesh: RunningMesh) -> None:
    refused(query(mesh, account="subonly", ot_id="supplier"), 403, "network_permission_denied")
    refused(query(mesh, ot_id="project", kn_id="no_such"), 404, "not_found")


def test_logic_params_only_when_asked(mesh: RunningMesh) -> None:
    plain = ok(query(mesh, ot_id="supplier", limit=1))
    assert "logic_params" not in plain and "order_count" not in plain["objects"][0]
    asked = ok(query(mesh, ot_id="supplier", limit=1, include_logic_params=True))
    params = {lp["name"]: lp["parameters"] for lp in asked["logic_params"]["supplier"]}
    assert params["order_count"] == ["start_time", "end_time"]
    assert params["supplier_score"] == ["on_time_rate", "defect_rate", "price_index"]
