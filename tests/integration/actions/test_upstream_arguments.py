"""The upstream Context Loader's argument names on the action and logic-property tools
(issue 18 §1): ``_instance_identities``, ``dynamic_params``, ``query`` / ``additional_context``
/ ``llm_model``, and the list_action_executions filters, against the real mesh."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from tests.integration.actions.helpers import (
    KN,
    objects,
    ok,
    po,
    publish,
    refused,
    start_interaction,
    wait_finished,
    wait_until,
)
from tests.support.mesh import RunningMesh

# the highest purchase orders: test_actions takes them from the lowest up
ORDERS = sorted(o["po_id"] for o in objects("purchase_order"))[-6:]
WAREHOUSE_SNAPSHOT = "act_upstream_warehouse_rates"


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


@pytest.fixture(scope="module", autouse=True)
def warehouse_action(mesh: RunningMesh) -> Iterator[None]:
    """An action type on warehouses (few instances), one call for all targets."""
    publish(mesh, ev.ActionTypeUpserted(
        kn_id=KN, id=WAREHOUSE_SNAPSHOT, name="warehouse rates", description="tests",
        object_type_id="warehouse", toolbox_id="box_finance", tool_id="tool_get_rates",
        mode="once", parameters={"base": {"value_from": "const", "value": "CNY"}},
    ))
    wait_until(lambda: mesh.call("get_action_info", {
        "kn_id": KN, "at_id": WAREHOUSE_SNAPSHOT}).status_code == 200)
    yield


def test_action_info_takes_instance_identities_or_none(mesh: RunningMesh) -> None:
    targets = [po(i) for i in ORDERS[:2]]
    upstream = ok(mesh.call("get_action_info", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identities": targets}))
    legacy = ok(mesh.call("get_action_info", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identity": targets}))
    assert upstream == legacy and len(upstream["calls"]) == 2
    function = upstream["tools"][0]["function"]["parameters"]
    assert function["properties"]["_instance_identities"]["const"] == targets
    assert "dynamic_params" in function["required"]
    bare = ok(mesh.call("get_action_info", {"kn_id": KN, "at_id": "act_settle_po"}))
    assert bare["calls"] == [] and bare["action_type"]["id"] == "act_settle_po"
    body = refused(mesh.call("get_action_info", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identities": targets,
        "_instance_identity": targets[:1]}), 400, "invalid_request")
    assert "_instance_identities" in body["message"]


def test_execute_action_with_identities_and_dynamic_params(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = ORDERS[2:4]
    accepted = ok(mesh.call("execute_action", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identities": [po(i) for i in ids],
        "dynamic_params": {"X-Settlement-Channel": "cips"}, "bkn_context": context}))
    record = wait_finished(mesh, accepted["execution_id"])
    assert record["status"] == "completed" and record["success_count"] == 2
    assert record["parameters"] == {"X-Settlement-Channel": "cips"}
    assert [r["result"]["channel"] for r in record["results"]] == ["cips", "cips"]
    refused(mesh.call("execute_action", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identities": [po(ORDERS[4])],
        "dynamic_params": {"nope": 1}, "bkn_context": context}), 400, "INVALID_INPUT_PARAMS")


def test_execute_action_without_targets_acts_on_every_instance(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    warehouses = sorted(w["warehouse_id"] for w in objects("warehouse"))
    accepted = ok(mesh.call("execute_action", {
        "kn_id": KN, "at_id": WAREHOUSE_SNAPSHOT, "bkn_context": context}))
    assert accepted["target_count"] == len(warehouses)
    record = wait_finished(mesh, accepted["execution_id"])
    assert [t["warehouse_id"] for t in record["targets"]] == warehouses
    too_many = refused(mesh.call("execute_action", {
        "kn_id": KN, "at_id": "act_fx_rates_snapshot", "bkn_context": context}), 400,
        "invalid_instance_identity")
    assert too_many["details"]["instance_count"] > 100  # other tests may add orders


def test_logic_properties_accept_the_upstream_names_and_ignore_the_model_hints(
    mesh: RunningMesh,
) -> None:
    suppliers = [{"supplier_id": "S-0001"}, {"supplier_id": "S-0002"}]
    window = {"start_time": "2024-01-01T00:00:00+08:00", "end_time": "2025-12-31T23:59:59+08:00"}
    base = {"kn_id": KN, "ot_id": "supplier", "properties": ["order_count"],
            "dynamic_params": {"order_count": window}}
    legacy = ok(mesh.call("get_logic_properties_values",
                          {**base, "_instance_identity": suppliers}))
    upstream = ok(mesh.call("get_logic_properties_values", {
        **base, "_instance_identities": suppliers, "query": "2024 年各供应商的订单数",
        "additional_context": "timezone=Asia/Shanghai", "llm_model": "any-model"}))
    assert upstream == legacy and [r["_instance_identity"] for r in upstream["datas"]] == suppliers
    refused(mesh.call("get_logic_properties_values", base), 400, "invalid_request")


def _millis(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1000)


def test_list_action_executions_filters_and_search_after(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    mine = [ok(mesh.call("execute_action", {
        "kn_id": KN, "at_id": "act_settle_po", "_instance_identities": [po(i)],
        "bkn_context": context})) for i in ORDERS[4:6]]
    for accepted in mine:
        wait_finished(mesh, accepted["execution_id"])
    everything = ok(mesh.call("list_action_executions", {"kn_id": KN, "limit": 1000}))
    entries = everything["executions"]
    assert entries and all(e["trigger_type"] == "manual" for e in entries)
    by_type = ok(mesh.call("list_action_executions", {
        "kn_id": KN, "action_type_id": "act_settle_po", "limit": 1000}))
    assert {e["action_type_id"] for e in by_type["executions"]} == {"act_settle_po"}
    assert by_type == ok(mesh.call("list_action_executions", {
        "kn_id": KN, "at_id": "act_settle_po", "limit": 1000}))
    assert ok(mesh.call("list_action_executions", {
        "kn_id": KN, "trigger_type": "scheduled"}))["total_count"] == 0
    assert ok(mesh.call("list_action_executions", {
        "kn_id": KN, "status": "cancelled"}))["total_count"] == 0
    # a time window around the last two submissions holds exactly those two
    stamps = sorted(_millis(e["requested_at"]) for e in entries
                    if e["execution_id"] in {m["execution_id"] for m in mine})
    window = ok(mesh.call("list_action_executions", {
        "kn_id": KN, "start_time_from": stamps[0], "start_time_to": stamps[-1]}))
    expected = [e["execution_id"] for e in entries
                if stamps[0] <= _millis(e["requested_at"]) <= stamps[-1]]
    assert [e["execution_id"] for e in window["executions"]] == expected
    assert ok(mesh.call("list_action_executions", {
        "kn_id": KN, "start_time_from": int(time.time() * 1000) + 3_600_000}))["total_count"] == 0
    # search_after walks the same order as offset, page by page
    walked: list[str] = []
    cursor: list[Any] | None = None
    while True:
        body: dict[str, Any] = {"kn_id": KN, "limit": 2}
        if cursor:
            body["search_after"] = cursor
        page = ok(mesh.call("list_action_executions", body))
        walked += [e["execution_id"] for e in page["executions"]]
        cursor = page.get("search_after")
        if not page["has_more"]:
            assert cursor is None
            break
    assert walked == [e["execution_id"] for e in entries]
