"""The REST-only data tools (issue 18 §2) on the real mesh: the demo's tables loaded into
DuckDB by ontology-query from the bundle's data resources, through the gateway's REST routes
``/kn/run_sql``, ``/kn/list_resources``, ``/kn/describe_resource``."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.domain.toon import TOON_MEDIA_TYPE
from tests.support.calls import ok, publish, refused, wait_until
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

DATA = Path(__file__).resolve().parents[3] / "examples" / "supply_chain" / "data"
KN = "supply_chain"
MAX_ROWS = 50
JOIN = ("SELECT s.region, COUNT(*) AS orders, ROUND(SUM(p.amount), 2) AS total "
        "FROM {{.res_suppliers}} s JOIN {{res_purchase_orders}} p "
        "ON p.supplier_code = s.supplier_code GROUP BY s.region ORDER BY s.region")


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"ONTOLOGY_QUERY_SQL_MAX_ROWS": str(MAX_ROWS)}
    with running_mesh(infra, tmp_path_factory.mktemp("data-mesh"), extra_env=env) as running:
        yield running


def rows(table: str) -> list[dict[str, str]]:
    with (DATA / f"{table}.csv").open() as f:
        return list(csv.DictReader(f))


def sql(mesh: RunningMesh, text: str, account: str = "dev", **extra: Any) -> Any:
    return mesh.call("run_sql", {"sql": text, **extra}, account)


def test_list_resources_pages_the_accounts_pool(mesh: RunningMesh) -> None:
    every = ok(mesh.call("list_resources", {"limit": 100}))
    ids = [e["resource_id"] for e in every["entries"]]
    assert every["total_count"] == 7 and ids == sorted(ids)
    page = ok(mesh.call("list_resources", {"limit": 3, "offset": 3}))
    assert [e["resource_id"] for e in page["entries"]] == ids[3:6] and page["total_count"] == 7
    entry = next(e for e in every["entries"] if e["resource_id"] == "res_suppliers")
    assert (entry["type"], entry["status"], entry["catalog_id"]) == ("table", "active", "erp_mysql")
    assert ok(mesh.call("list_resources", {"catalog_id": "nope"}))["total_count"] == 0
    assert ok(mesh.call("list_resources", {"type": "table"}))["total_count"] == 7
    analyst = ok(mesh.call("list_resources", {}, "analyst"))
    assert [e["resource_id"] for e in analyst["entries"]] == ["res_purchase_orders",
                                                               "res_suppliers"]


def test_list_resources_of_a_network_returns_its_bindings_at_once(mesh: RunningMesh) -> None:
    bound = ok(mesh.call("list_resources", {"kn_id": KN, "limit": 1}))  # limit ignored with kn_id
    assert bound["total_count"] == 7 and bound["unbound"] == [] and bound["missing"] == []
    supplier = next(e for e in bound["entries"] if e["resource_id"] == "res_suppliers")
    assert supplier["object_type_ids"] == ["supplier"]
    analyst = ok(mesh.call("list_resources", {"kn_id": KN}, "analyst"))
    assert {e["resource_id"] for e in analyst["entries"]} == {"res_suppliers",
                                                             "res_purchase_orders"}
    assert {m["resource_id"] for m in analyst["missing"]} == {
        "res_materials", "res_warehouses", "res_customers", "res_sales_orders", "res_shipments"}
    assert {m["reason"] for m in analyst["missing"]} == {"no_grant"}
    other = ok(mesh.call("list_resources", {"kn_id": "other_network"}))
    assert other["entries"] == [] and other["unbound"]  # its types are bound to nothing
    refused(mesh.call("list_resources", {"kn_id": KN}, "subonly"), 403,
            "network_permission_denied")


def test_describe_resource_gives_the_physical_columns(mesh: RunningMesh) -> None:
    described = ok(mesh.call("describe_resource", {"resource_id": "res_suppliers"}))
    assert described["connector_type"] == "mysql"
    columns = {c["name"]: c for c in described["columns"]}
    assert list(columns) == list(rows("suppliers")[0])
    assert columns["supplier_code"]["type"] == "varchar" and columns["rating"]["type"] == "double"
    assert columns["supplier_code"]["description"]
    refused(mesh.call("describe_resource", {"resource_id": "res_nope"}), 404,
            "data_resource_not_found")
    body = refused(mesh.call("describe_resource", {"resource_id": "res_customers"}, "analyst"),
                   403, "data_resource_forbidden")
    assert body["details"] == {"resource_id": "res_customers"}
    assert "res_customers" in body["message"]


def test_run_sql_groups_over_a_join_of_the_demo_tables(mesh: RunningMesh) -> None:
    answer = ok(sql(mesh, JOIN))
    region_of = {s["supplier_code"]: s["region"] for s in rows("suppliers")}
    counts: Counter[str] = Counter()
    totals: defaultdict[str, float] = defaultdict(float)
    for order in rows("purchase_orders"):
        region = region_of[order["supplier_code"]]
        counts[region] += 1
        totals[region] += float(order["amount"])
    assert [c["name"] for c in answer["columns"]] == ["region", "orders", "total"]
    assert answer["entries"] == [{"region": r, "orders": counts[r], "total": round(totals[r], 2)}
                                 for r in sorted(counts)]
    assert answer["truncated"] is False and answer["total_count"] == len(counts)


def test_run_sql_answers_in_toon_too(mesh: RunningMesh) -> None:
    with mesh.client("dev") as client:
        response = client.post("/api/agent-retrieval/v1/kn/run_sql",
                               params={"response_format": "toon"}, json={"sql": JOIN})
        in_body = client.post("/api/agent-retrieval/v1/kn/run_sql",
                              json={"sql": JOIN, "response_format": "toon"})
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        TOON_MEDIA_TYPE)
    assert response.text == in_body.text and "entries[" in response.text


def test_rows_past_the_cap_are_cut_and_marked_truncated(mesh: RunningMesh) -> None:
    answer = ok(sql(mesh, "SELECT po_id FROM {{.res_purchase_orders}} ORDER BY po_id"))
    assert len(answer["entries"]) == MAX_ROWS and answer["truncated"] is True
    expected = sorted(r["po_id"] for r in rows("purchase_orders"))[:MAX_ROWS]
    assert [e["po_id"] for e in answer["entries"]] == expected


@pytest.mark.parametrize(("text", "status", "code"), [
    ("SELECT 1 FROM {{.res_suppliers}}; SELECT 2 FROM {{.res_suppliers}}", 400,
     "sql_multiple_statements"),
    ("UPDATE {{.res_suppliers}} SET rating = 0", 400, "sql_not_select"),
    ("CREATE TABLE x (a INT)", 400, "sql_not_select"),
    ("WITH t AS (SELECT * FROM {{.res_suppliers}}) SELECT * FROM t", 400,
     "sql_with_not_supported"),
    ("SELECT city FROM {{.res_suppliers}} UNION SELECT city FROM {{.res_warehouses}}", 400,
     "sql_set_operation_not_supported"),
    ("SELECT * FROM {{.resource_id}}", 400, "sql_placeholder_literal"),
    ("SELECT * FROM {{.res_unknown}}", 404, "data_resource_not_found"),
    ("SELECT * FROM suppliers", 400, "sql_table_not_placeholder"),
    ("SELECT * FROM read_csv('/etc/passwd')", 400, "sql_function_not_allowed"),
    ("SELECT supplier_code FROM {{.res_suppliers}} WHERE", 400, "sql_syntax_error"),
    ("SELECT nope FROM {{.res_suppliers}}", 400, "sql_execution_error"),
])
def test_every_refusal_has_its_code(mesh: RunningMesh, text: str, status: int, code: str) -> None:
    refused(sql(mesh, text), status, code)


def test_a_syntax_error_says_where(mesh: RunningMesh) -> None:
    body = refused(sql(mesh, "SELECT supplier_code FROM {{.res_suppliers}} WHERE"), 400,
                   "sql_syntax_error")
    assert body["details"]["line"] == 1 and body["details"]["column"] > 0
    assert "line 1" in body["message"]
    zh = refused(mesh.call("run_sql", {"sql": "SELEC 1"}, "dev", **{"Accept-Language": "zh-CN"}),
                 400, "sql_syntax_error")
    assert "第 1 行" in zh["message"]


def test_no_grant_is_403_naming_the_resource(mesh: RunningMesh) -> None:
    assert ok(sql(mesh, "SELECT COUNT(*) AS n FROM {{.res_suppliers}}", "analyst"))["entries"] == [
        {"n": len(rows("suppliers"))}]
    body = refused(sql(mesh, "SELECT * FROM {{.res_suppliers}} s JOIN {{.res_customers}} c "
                             "ON s.city = c.city", "analyst"), 403, "data_resource_forbidden")
    assert body["details"] == {"resource_id": "res_customers"}


def test_joins_stay_within_one_catalog(mesh: RunningMesh) -> None:
    publish(mesh, ev.DataResourceUpserted.model_validate({
        "id": "res_crm_contacts", "name": "contacts", "catalog_id": "crm_pg",
        "connector_type": "postgresql",
        "columns": [{"name": "customer_id", "type": "varchar"}, {"name": "name", "type": "varchar"}],
        "source": {"path": str(DATA / "customers.csv")}}))
    wait_until(lambda: mesh.call("describe_resource",
                                 {"resource_id": "res_crm_contacts"}).status_code == 200)
    refused(sql(mesh, "SELECT * FROM {{.res_customers}} a JOIN {{.res_crm_contacts}} b "
                      "ON a.customer_id = b.customer_id"), 400, "sql_cross_catalog")
    refused(sql(mesh, "SELECT * FROM {{.res_customers}}", resource_type="postgresql"), 400,
            "sql_resource_type_mismatch")


def test_query_timeout_interrupts_the_query(mesh: RunningMesh) -> None:
    heavy = ("SELECT COUNT(*) AS n FROM {{.res_sales_orders}} a, {{.res_sales_orders}} b, "
             "{{.res_sales_orders}} c, {{.res_sales_orders}} d, {{.res_sales_orders}} e "
             "WHERE a.amount + b.amount + c.amount + d.amount + e.amount > 0")
    body = refused(sql(mesh, heavy, query_timeout=1), 504, "sql_query_timeout")
    assert body["details"] == {"query_timeout": 1}
    assert ok(sql(mesh, "SELECT COUNT(*) AS n FROM {{.res_sales_orders}}"))["entries"] == [
        {"n": len(rows("sales_orders"))}]
    refused(sql(mesh, "SELECT 1 FROM {{.res_suppliers}}", query_timeout=0), 400,
            "invalid_request")
