"""Lifecycle, binding and proxy changes on supply_chain itself, and a trace core outage.

These mutate the demo network (and stop a service), so the module has its own mesh; every
test puts back what it changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from tests.integration.capabilities.helpers import (
    FX,
    FX_ARGS,
    execute,
    finance_stats,
    logistics_stats,
    ok,
    publish,
    receipts,
    refs,
    refused,
    search,
    search_refs,
    skill_ref,
    start_interaction,
    tool_ref,
    wait_receipt,
    wait_until,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

FX_REF = ("function", *FX)
FINANCE = ["tool_fx_convert", "tool_settle_order", "tool_get_rates", "tool_slow_op"]
BUNDLE_BINDINGS = [
    skill_ref("skill_fx_report"),
    *(
        tool_ref("box_finance", t)
        for t in (
            "tool_fx_convert",
            "tool_settle_order",
            "tool_get_rates",
            "tool_get_invoice",
            "tool_slow_op",
        )
    ),
    tool_ref("box_analytics", "tool_inventory_turnover"),
    tool_ref("box_analytics", "tool_supplier_score"),
    tool_ref("mcp_logistics", "track_shipment", "mcp_tool"),
    tool_ref("mcp_logistics", "estimate_delivery", "mcp_tool"),
    skill_ref("skill_supplier_audit"),
    tool_ref("box_legacy_erp", "tool_legacy_query_stock"),
    tool_ref("box_legacy_erp", "tool_legacy_sync_order"),
]


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("cap_lifecycle")) as running:
        yield running


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


@pytest.fixture(scope="module")
def baseline(mesh: RunningMesh) -> list[tuple[str, str | None, str]]:
    return search_refs(mesh)


def restored(mesh: RunningMesh, baseline: list[Any]) -> None:
    wait_until(lambda: search_refs(mesh) == baseline)


def test_disabling_a_tool_takes_it_out_of_search_and_execution(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    """Must-show: ToolStateChanged(enabled=False) → neither found nor run (id kept from before)."""
    kept = next(
        c
        for c in ok(search(mesh, query="汇率换算"))["capabilities"]
        if c["capability_id"] == "tool_fx_convert"
    )
    assert FX_REF in baseline
    before = finance_stats(mesh)["fx_convert"]
    publish(
        mesh, ev.ToolStateChanged(owner_id="box_finance", tool_id="tool_fx_convert", enabled=False)
    )
    try:
        wait_until(lambda: FX_REF not in search_refs(mesh), timeout=10)
        assert FX_REF not in search_refs(mesh, query="汇率换算")
        assert FX_REF not in search_refs(mesh, query="fx_convert amount currency", limit=100)
        assert FX_REF not in search_refs(mesh, metadata_types=["openapi"])
        assert FX_REF not in search_refs(mesh, owner_id="box_finance")
        # the id from the earlier search is checked again
        body = refused(
            execute(mesh, context, kept["owner_id"], kept["capability_id"], FX_ARGS),
            409,
            "tool_disabled",
        )
        assert "box_finance/tool_fx_convert" in body["message"]
        assert finance_stats(mesh)["fx_convert"] == before
    finally:
        publish(
            mesh,
            ev.ToolStateChanged(owner_id="box_finance", tool_id="tool_fx_convert", enabled=True),
        )
    restored(mesh, baseline)
    assert ok(execute(mesh, context, *FX, FX_ARGS))["converted"] == 720.0
    assert finance_stats(mesh)["fx_convert"] == before + 1


def test_taking_a_toolbox_offline_hides_and_refuses_all_its_tools(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    """Must-show: OwnerStateChanged(state="offline") → neither found nor run."""
    before = finance_stats(mesh)
    publish(
        mesh, ev.OwnerStateChanged(owner_kind="toolbox", owner_id="box_finance", state="offline")
    )
    try:
        wait_until(lambda: not any(r[1] == "box_finance" for r in search_refs(mesh)), timeout=10)
        for body in ({"query": "汇率 结算 订单"}, {"metadata_types": ["openapi"]}):
            assert not any(r[1] == "box_finance" for r in search_refs(mesh, **body))
        empty = ok(search(mesh, owner_id="box_finance"))
        assert empty["capabilities"] == [] and "publish state" in empty["message"]
        empty = ok(search(mesh, metadata_types=["openapi"]))
        assert empty["capabilities"] == [] and "publish state" in empty["message"]
        for tool in FINANCE:
            body = refused(
                execute(mesh, context, "box_finance", tool, {}), 409, "owner_unpublished"
            )
            assert "box_finance" in body["message"] and body["details"]["reason"] == "owner_offline"
        assert finance_stats(mesh) == before
    finally:
        publish(
            mesh,
            ev.OwnerStateChanged(owner_kind="toolbox", owner_id="box_finance", state="published"),
        )
    restored(mesh, baseline)


def test_taking_an_mcp_server_offline_hides_and_refuses_its_tools(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    before = logistics_stats(mesh)
    publish(
        mesh,
        ev.OwnerStateChanged(owner_kind="mcp_server", owner_id="mcp_logistics", state="offline"),
    )
    try:
        wait_until(lambda: not any(r[0] == "mcp_tool" for r in search_refs(mesh)), timeout=10)
        assert search_refs(mesh, query="运单 跟踪", types=["mcp_tool"]) == []
        body = refused(
            execute(mesh, context, "mcp_logistics", "track_shipment", {"shipment_id": "SF1"}),
            409,
            "owner_unpublished",
        )
        assert "MCP Server mcp_logistics" in body["message"]
        assert logistics_stats(mesh) == before
    finally:
        publish(
            mesh,
            ev.OwnerStateChanged(
                owner_kind="mcp_server", owner_id="mcp_logistics", state="published"
            ),
        )
    restored(mesh, baseline)
    assert ok(execute(mesh, context, "mcp_logistics", "track_shipment", {"shipment_id": "SF1"}))


def test_an_unsynced_proxy_refuses_execution(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    before = finance_stats(mesh)
    publish(
        mesh, ev.ProxySyncChanged(kn_id="supply_chain", proxy_id="proxy-supply-chain", synced=False)
    )
    try:

        def refusal() -> bool:
            return execute(mesh, context, *FX, FX_ARGS).status_code == 409

        wait_until(refusal, timeout=10)
        body = refused(execute(mesh, context, *FX, FX_ARGS), 409, "proxy_not_synced")
        assert "proxy" in body["message"] and "supply_chain" in body["message"]
        assert finance_stats(mesh) == before
        assert search_refs(mesh) == baseline  # searching does not need the proxy
    finally:
        publish(
            mesh,
            ev.ProxySyncChanged(kn_id="supply_chain", proxy_id="proxy-supply-chain", synced=True),
        )
    wait_until(lambda: execute(mesh, context, *FX, FX_ARGS).status_code == 200, timeout=10)


def test_unmounting_takes_a_capability_out_of_search_and_execution(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    before = finance_stats(mesh)["fx_convert"]
    publish(mesh, ev.BindingUnmounted(kn_id="supply_chain", capability=tool_ref(*FX)))
    try:
        wait_until(lambda: FX_REF not in search_refs(mesh), timeout=10)
        assert FX_REF not in search_refs(mesh, query="汇率换算")
        refused(execute(mesh, context, *FX, FX_ARGS), 404, "capability_not_mounted")
        assert finance_stats(mesh)["fx_convert"] == before
        # a mount goes to the end of the binding order
        publish(mesh, ev.BindingMounted(kn_id="supply_chain", capability=tool_ref(*FX)))
        wait_until(lambda: search_refs(mesh)[-1:] == [FX_REF], timeout=10)
    finally:
        publish(
            mesh, ev.BindingsReplaced(kn_id="supply_chain", capabilities=tuple(BUNDLE_BINDINGS))
        )
    restored(mesh, baseline)


def test_trace_core_outage_runs_unrecorded(
    mesh: RunningMesh, context: dict[str, str], baseline: list[Any]
) -> None:
    before = finance_stats(mesh)["fx_convert"]
    mesh.stop("trace-recorder")
    try:
        adhoc = execute(mesh, None, *FX, FX_ARGS)
        assert ok(adhoc)["converted"] == 720.0
        assert adhoc.headers["bkn-trace-recorded"] == "false"
        managed = execute(mesh, context, *FX, FX_ARGS)
        assert ok(managed)["converted"] == 720.0
        assert managed.headers["bkn-trace-recorded"] == "false"
        assert finance_stats(mesh)["fx_convert"] == before + 2
        refused(
            mesh.call(
                "bkn_start_interaction",
                {"question": "q", "agent_name": "test", "conversation_mode": "new"},
            ),
            503,
            "trace_core_unavailable",
        )
        assert search_refs(mesh) == baseline  # reads do not need the trace core
        # dispatched, so receipts exist; the ad-hoc one has no operation
        receipt = wait_receipt(
            mesh, lambda r: r.tool_id == "tool_fx_convert" and r.operation_id is None
        )
        assert receipt.caller == "dev" and receipt.outcome == "succeeded"
    finally:
        mesh.start("trace-recorder")
    body = refused(execute(mesh, None, *FX, FX_ARGS), 400, "conversation_required")
    assert body["required_action"] == "create_conversation"
    recorded = execute(mesh, context, *FX, FX_ARGS)
    assert ok(recorded) and "bkn-trace-recorded" not in recorded.headers
    assert recorded.headers["bkn-receipt-id"] in {r.receipt_id for r in receipts(mesh)}
    assert refs(search(mesh)) == baseline
