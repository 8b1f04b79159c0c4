"""get_logic_properties_values over the real mesh: parameters checked first, metric values
against a brute-force computation over the bundle files, operator properties through the real
tools (counted on the finance upstream), rows aligned with the input, permissions."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from tests.integration.actions.helpers import (
    finance_stats,
    logic_values,
    objects,
    ok,
    publish,
    refused,
    relations,
    schema_event,
    wait_until,
)
from tests.support.mesh import RunningMesh

WINDOW = {"start_time": "2024-07-01T00:00:00+08:00", "end_time": "2025-03-31T23:59:59+08:00"}


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _brute_force_supplier_metrics(start: str, end: str) -> dict[str, tuple[int, float]]:
    """Per supplier: (orders in the window, sum of their amounts), straight from the files."""
    orders = {o["po_id"]: o for o in objects("purchase_order")}
    low, high = _moment(start), _moment(end)
    out: dict[str, tuple[int, float]] = {s["supplier_id"]: (0, 0.0) for s in objects("supplier")}
    amounts: dict[str, list[float]] = defaultdict(list)
    for supplier_id, po_id in relations("rel_supplier_po"):
        order = orders[po_id]
        if low <= _moment(order["order_date"]) <= high:
            amounts[supplier_id].append(order["amount"])
    for supplier_id, values in amounts.items():
        out[supplier_id] = (len(values), math.fsum(values))
    return out


# -- parameters ---------------------------------------------------------------------------------


def test_missing_parameters_are_listed_per_property(mesh: RunningMesh) -> None:
    before = finance_stats(mesh)
    response = logic_values(
        mesh,
        "supplier",
        [{"supplier_id": "S-0001"}],
        ["order_count", "purchase_amount", "supplier_score"],
        {
            "order_count": {"start_time": WINDOW["start_time"]},
            "supplier_score": {"on_time_rate": 0.9},
        },
    )
    body = refused(response, 400, "MISSING_INPUT_PARAMS")
    assert body["details"]["missing"] == [
        {"property": "order_count", "params": [{"name": "end_time"}]},
        {"property": "purchase_amount", "params": [{"name": "start_time"}, {"name": "end_time"}]},
        {
            "property": "supplier_score",
            "params": [{"name": "defect_rate"}, {"name": "price_index"}],
        },
    ]
    assert "end_time" in body["message"]
    assert finance_stats(mesh) == before  # nothing ran


def test_unknown_property_and_stray_parameters_are_refused(mesh: RunningMesh) -> None:
    body = refused(
        logic_values(mesh, "supplier", [{"supplier_id": "S-0001"}], ["no_such"]),
        404,
        "logic_property_not_found",
    )
    assert body["details"]["unknown"] == ["no_such"]
    refused(
        logic_values(
            mesh,
            "supplier",
            [{"supplier_id": "S-0001"}],
            ["order_count"],
            {"order_count": {**WINDOW, "region": "华东"}},
        ),
        400,
        "INVALID_INPUT_PARAMS",
    )
    refused(
        logic_values(
            mesh,
            "supplier",
            [{"supplier_id": "S-0001"}],
            ["order_count"],
            {"order_count": {"start_time": "yesterday", "end_time": "today"}},
        ),
        400,
        "INVALID_INPUT_PARAMS",
    )
    refused(
        logic_values(
            mesh, "supplier", [{"po_id": "PO-2024-0001"}], ["order_count"], {"order_count": WINDOW}
        ),
        400,
        "invalid_instance_identity",
    )


# -- metrics --------------------------------------------------------------------------------


def test_metric_values_match_a_brute_force_count_over_the_bundle(mesh: RunningMesh) -> None:
    suppliers = [{"supplier_id": s["supplier_id"]} for s in objects("supplier")]
    data = ok(
        logic_values(
            mesh,
            "supplier",
            suppliers,
            ["order_count", "purchase_amount"],
            {"order_count": WINDOW, "purchase_amount": WINDOW},
        )
    )
    expected = _brute_force_supplier_metrics(WINDOW["start_time"], WINDOW["end_time"])
    assert [row["_instance_identity"] for row in data["datas"]] == suppliers
    for row in data["datas"]:
        count, amount = expected[row["_instance_identity"]["supplier_id"]]
        assert row["order_count"] == count
        assert row["purchase_amount"] == pytest.approx(amount, abs=1e-6)
    assert sum(row["order_count"] for row in data["datas"]) > 0  # the window is not empty


def test_metrics_without_a_window_count_every_related_instance(mesh: RunningMesh) -> None:
    materials = [{"material_code": m["material_code"]} for m in objects("material")]
    data = ok(logic_values(mesh, "material", materials, ["warehouse_count"]))
    per_material: dict[str, int] = defaultdict(int)
    for material_code, _ in relations("rel_material_warehouse"):
        per_material[material_code] += 1
    assert {
        r["_instance_identity"]["material_code"]: r["warehouse_count"] for r in data["datas"]
    } == {m["material_code"]: per_material.get(m["material_code"], 0) for m in materials}
    customers = [{"customer_id": c["customer_id"]} for c in objects("customer")]
    window = {"start_time": "2025-01-01T00:00:00+08:00", "end_time": "2025-06-30T23:59:59+08:00"}
    data = ok(
        logic_values(
            mesh, "customer", customers, ["sales_order_count"], {"sales_order_count": window}
        )
    )
    orders = {o["so_id"]: o for o in objects("sales_order")}
    low, high = _moment(window["start_time"]), _moment(window["end_time"])
    expected: dict[str, int] = defaultdict(int)
    for customer_id, so_id in relations("rel_customer_so"):
        if low <= _moment(orders[so_id]["order_date"]) <= high:
            expected[customer_id] += 1
    assert {
        r["_instance_identity"]["customer_id"]: r["sales_order_count"] for r in data["datas"]
    } == {c["customer_id"]: expected.get(c["customer_id"], 0) for c in customers}


def test_rows_align_with_the_input_including_unknown_instances(mesh: RunningMesh) -> None:
    identities = [
        {"supplier_id": "S-0003"},
        {"supplier_id": "S-9999"},
        {"supplier_id": "S-0001"},
        {"supplier_id": "S-0003"},
    ]
    data = ok(logic_values(mesh, "supplier", identities, ["order_count"], {"order_count": WINDOW}))
    assert [row["_instance_identity"] for row in data["datas"]] == identities
    expected = _brute_force_supplier_metrics(WINDOW["start_time"], WINDOW["end_time"])
    assert (
        data["datas"][0]["order_count"] == data["datas"][3]["order_count"] == expected["S-0003"][0]
    )
    assert data["datas"][2]["order_count"] == expected["S-0001"][0]
    assert data["datas"][1]["_error"]["code"] == "instance_not_found"
    assert "order_count" not in data["datas"][1]


def test_grouped_metric_with_min_max_avg(mesh: RunningMesh) -> None:
    """A grouped metric and the other aggregates, added to supplier under new names."""
    supplier = schema_event(ev.ObjectTypeUpserted, "supplier")
    extra = (
        ev.LogicProperty(
            name="amount_by_currency",
            kind="metric",
            parameters=("start_time", "end_time"),
            definition={
                "relation_type": "rel_supplier_po",
                "aggregate": "sum",
                "field": "amount",
                "time_field": "order_date",
                "group_by": "currency",
            },
        ),
        ev.LogicProperty(
            name="largest_order",
            kind="metric",
            definition={"relation_type": "rel_supplier_po", "aggregate": "max", "field": "amount"},
        ),
        ev.LogicProperty(
            name="average_order",
            kind="metric",
            definition={"relation_type": "rel_supplier_po", "aggregate": "avg", "field": "amount"},
        ),
        ev.LogicProperty(
            name="first_order_date",
            kind="metric",
            definition={
                "relation_type": "rel_supplier_po",
                "aggregate": "min",
                "field": "order_date",
            },
        ),
    )
    publish(
        mesh, supplier.model_copy(update={"logic_properties": supplier.logic_properties + extra})
    )
    names = [p.name for p in extra]
    suppliers = [{"supplier_id": s["supplier_id"]} for s in objects("supplier")]

    def computed() -> dict[str, Any] | None:
        response = logic_values(mesh, "supplier", suppliers, names, {"amount_by_currency": WINDOW})
        return response.json() if response.status_code == 200 else None

    data = wait_until(computed)
    orders = {o["po_id"]: o for o in objects("purchase_order")}
    linked: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for supplier_id, po_id in relations("rel_supplier_po"):
        linked[supplier_id].append(orders[po_id])
    low, high = _moment(WINDOW["start_time"]), _moment(WINDOW["end_time"])
    for row in data["datas"]:
        mine = linked.get(row["_instance_identity"]["supplier_id"], [])
        groups: dict[str, list[float]] = defaultdict(list)
        for order in mine:
            if low <= _moment(order["order_date"]) <= high:
                groups[order["currency"]].append(order["amount"])
        assert [g["key"] for g in row["amount_by_currency"]] == sorted(groups)
        for group in row["amount_by_currency"]:
            assert group["value"] == pytest.approx(math.fsum(groups[group["key"]]), abs=1e-6)
        amounts = [o["amount"] for o in mine]
        assert row["largest_order"] == (max(amounts) if amounts else None)
        assert row["average_order"] == (
            pytest.approx(math.fsum(amounts) / len(amounts)) if amounts else None
        )
        first = min((_moment(o["order_date"]) for o in mine), default=None)
        assert (_moment(row["first_order_date"]) if row["first_order_date"] else None) == first


# -- operators ------------------------------------------------------------------------------


def test_operator_property_runs_the_real_tool_once_per_row(mesh: RunningMesh) -> None:
    orders = [o for o in objects("purchase_order") if o["currency"] != "CNY"][:3]
    before = finance_stats(mesh)["fx_convert"]
    data = ok(
        logic_values(
            mesh,
            "purchase_order",
            [{"po_id": o["po_id"]} for o in orders],
            ["amount_cny"],
            {"amount_cny": {"date": "2025-03-01"}},
        )
    )
    assert finance_stats(mesh)["fx_convert"] == before + len(orders)
    rates = {"USD": 7.2, "EUR": 7.8, "JPY": 0.048, "HKD": 0.92}
    for order, row in zip(orders, data["datas"], strict=True):
        value = row["amount_cny"]
        assert (value["from"], value["to"], value["date"]) == (
            order["currency"],
            "CNY",
            "2025-03-01",
        )
        assert value["converted"] == pytest.approx(
            round(order["amount"] * rates[order["currency"]], 2), abs=0.011
        )
        assert row["_receipts"]["amount_cny"].startswith("rcpt_")


def test_operator_function_tool_with_property_arguments(mesh: RunningMesh) -> None:
    params = {"on_time_rate": 0.95, "defect_rate": 0.01, "price_index": 1.0}
    data = ok(
        logic_values(
            mesh,
            "supplier",
            [{"supplier_id": "S-0001"}, {"supplier_id": "S-0002"}],
            ["supplier_score", "order_count"],
            {"supplier_score": params, "order_count": WINDOW},
        )
    )
    first, second = data["datas"]
    assert isinstance(first["supplier_score"], dict) and "_errors" not in first
    assert first["supplier_score"] != second["supplier_score"]  # the rating (4.9 vs 3.1) is bound
    assert isinstance(first["order_count"], int)


def test_operator_properties_need_execute_metrics_only_view_detail(mesh: RunningMesh) -> None:
    before = finance_stats(mesh)["fx_convert"]
    body = refused(
        logic_values(
            mesh,
            "purchase_order",
            [{"po_id": "PO-2024-0001"}],
            ["amount_cny"],
            {"amount_cny": {"date": "2025-03-01"}},
            account="viewer",
        ),
        403,
        "network_permission_denied",
    )
    assert body["details"]["missing_permission"] == "execute"
    assert finance_stats(mesh)["fx_convert"] == before
    ok(
        logic_values(
            mesh,
            "supplier",
            [{"supplier_id": "S-0001"}],
            ["order_count"],
            {"order_count": WINDOW},
            account="viewer",
        )
    )
    refused(
        logic_values(
            mesh,
            "supplier",
            [{"supplier_id": "S-0001"}],
            ["order_count"],
            {"order_count": WINDOW},
            account="subonly",
        ),
        403,
        "network_permission_denied",
    )
