"""Provenance through the gateway: a full turn readable afterwards, spans linked, receipts
on Kafka, capture disabled by policy, and the trace-core outage policy."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

FX = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_fx_convert",
      "arguments": {"amount": 10, "from": "USD", "to": "CNY"}}


def start(mesh: RunningMesh, question: str = "汇率是多少", **headers: str) -> dict[str, str]:
    response = mesh.call("bkn_start_interaction",
                         {"question": question, "agent_name": "tests", "conversation_mode": "new"}, **headers)
    assert response.status_code == 200, response.text
    return response.json()


def context(started: dict[str, str]) -> dict[str, str]:
    return {"conversation_id": started["conversation_id"], "interaction_id": started["interaction_id"]}


def read_interaction(mesh: RunningMesh, interaction_id: str) -> dict[str, Any]:
    with mesh.internal("trace_recorder") as client:
        response = client.get(f"/internal/v1/interactions/{interaction_id}")
    assert response.status_code == 200, response.text
    return response.json()


def eventually(check, timeout: float = 20.0) -> Any:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_full_turn_is_readable_with_operations_receipts_evidence_and_spans(mesh: RunningMesh) -> None:
    started = start(mesh)
    ctx = context(started)
    search = mesh.call("search_capabilities", {"kn_id": "supply_chain", "query": "汇率", "bkn_context": ctx})
    assert search.status_code == 200 and search.headers["bkn-receipt-status"] == "completed"
    execute = mesh.call("execute_tool", {**FX, "bkn_context": ctx})
    assert execute.status_code == 200, execute.text
    assert execute.json()["converted"] == 72.0
    receipt_id = execute.headers["bkn-receipt-id"]
    finish = mesh.call("bkn_finish_interaction", {**ctx, "outcome": "completed", "answer": "72 CNY"})
    assert finish.json()["execution_status"] == "completed"
    assert finish.json()["operations_status"] == "succeeded"
    assert finish.json()["evidence_status"] == "complete"

    def complete_view() -> dict[str, Any]:
        view = read_interaction(mesh, ctx["interaction_id"])
        operations = {op["tool_name"]: op for op in view["operations"]}
        assert set(operations) == {"search_capabilities", "execute_tool"}
        execution = operations["execute_tool"]
        kinds = sorted(e["evidence_type"] for e in execution["evidence"])
        assert kinds == ["execution", "execution"], kinds  # the gateway's and tool-executor's receipt
        assert execution["receipt_id"] == receipt_id
        retrieval = operations["search_capabilities"]["evidence"][0]
        assert any(ref.startswith("capability:supply_chain:function:box_finance:tool_fx_convert")
                   for ref in retrieval["source_refs"])
        assert "query_hash" in retrieval["attributes"] and "汇率" not in str(retrieval["attributes"])
        services = {s["service_name"] for s in view["spans"]}
        assert {"gateway", "tool-executor", "capability-index"} <= services, services
        # tool-executor learns the operation from the gateway's baggage and names it on its spans
        assert any(s["service_name"] == "tool-executor"
                   and s["attributes"].get("bkn.operation_id") == execution["operation_id"]
                   for s in view["spans"])
        assert any(s["name"] == "execute_tool execute_tool" or s["name"].startswith("execute_tool")
                   for s in view["spans"])
        return view

    eventually(complete_view)
    with mesh.internal("trace_recorder") as client:
        conversation = client.get(f"/internal/v1/conversations/{ctx['conversation_id']}").json()
    assert [i["interaction_id"] for i in conversation["interactions"]] == [ctx["interaction_id"]]


def test_only_spans_of_managed_calls_reach_trace_core(mesh: RunningMesh) -> None:
    ad_hoc_trace, managed_trace = "a" * 31 + "1", "b" * 31 + "2"
    search = {"kn_id": "supply_chain", "query": "汇率"}
    assert mesh.call("search_capabilities", search, traceparent=f"00-{ad_hoc_trace}-{'1' * 16}-01").status_code == 200
    ctx = context(start(mesh))
    managed = mesh.call("search_capabilities", {**search, "bkn_context": ctx},
                        traceparent=f"00-{managed_trace}-{'2' * 16}-01")
    assert managed.status_code == 200

    def spans_by_trace() -> dict[str, set[str]]:
        with mesh.internal("trace_recorder") as client:
            response = client.get("/internal/v1/state/snapshot", params={"section": "spans"})
        out: dict[str, set[str]] = {}
        for key, span in response.json().items():
            out.setdefault(key.split("/")[0], set()).add(span["service_name"])
        return out

    def managed_spans_arrived() -> dict[str, set[str]]:
        by_trace = spans_by_trace()
        assert {"gateway", "capability-index"} <= by_trace.get(managed_trace, set())
        return by_trace

    eventually(managed_spans_arrived)
    time.sleep(1.0)  # twice the exporters' batch delay
    assert ad_hoc_trace not in spans_by_trace()


def test_finishing_keeps_the_conversation_open_for_the_next_turn(mesh: RunningMesh) -> None:
    first = start(mesh)
    ctx = context(first)
    mesh.call("bkn_finish_interaction", {**ctx, "outcome": "cancelled", "reason": "user left"})
    again = mesh.call("bkn_start_interaction", {"question": "再问一次", "agent_name": "tests",
                                                "conversation_mode": "continue",
                                                "conversation_id": ctx["conversation_id"]})
    assert again.status_code == 200 and again.json()["conversation_id"] == ctx["conversation_id"]
    assert again.json()["interaction_id"] != ctx["interaction_id"]


def test_invented_ids_are_refused(mesh: RunningMesh) -> None:
    invented = {"conversation_id": "conv_invented", "interaction_id": "int_invented"}
    response = mesh.call("search_capabilities", {"kn_id": "supply_chain", "bkn_context": invented})
    assert response.status_code == 404 and response.json()["code"] == "interaction_not_found"
    cont = mesh.call("bkn_start_interaction", {"question": "q", "agent_name": "tests",
                                               "conversation_mode": "continue", "conversation_id": "conv_x"})
    assert cont.status_code == 404 and cont.json()["code"] == "conversation_not_found"


def test_trace_core_outage_fails_open_with_a_marker_and_a_partial_finish(mesh: RunningMesh) -> None:
    started = start(mesh)
    ctx = context(started)
    mesh.stop("trace-recorder")
    try:
        adhoc = mesh.call("execute_tool", FX)
        assert adhoc.status_code == 200 and adhoc.headers["bkn-trace-recorded"] == "false"
        assert adhoc.headers["bkn-trace-code"] == "trace_core_unavailable"
        managed = mesh.call("search_capabilities", {"kn_id": "supply_chain", "bkn_context": ctx})
        assert managed.status_code == 200
        assert managed.json()["bkn_trace"] == {"available": False, "recorded": False,
                                               "code": "trace_core_unavailable"}
        refused = mesh.call("bkn_start_interaction",
                            {"question": "q", "agent_name": "tests", "conversation_mode": "new"})
        assert refused.status_code == 503 and refused.json()["code"] == "trace_core_unavailable"
        assert "conversation_id" not in refused.json()
    finally:
        mesh.start("trace-recorder")
    finish = mesh.call("bkn_finish_interaction", {**ctx, "outcome": "completed", "answer": "x"})
    assert finish.status_code == 200, finish.text
    assert finish.json()["evidence_status"] == "partial"


@pytest.fixture(scope="module")
def no_capture(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("nocapture"),
                      extra_env={"TRACE_RECORDER_CAPTURE_ENABLED": "false"}) as running:
        yield running


def test_capture_disabled_issues_real_ids_and_records_nothing(no_capture: RunningMesh) -> None:
    started = start(no_capture)
    assert started["capture_enabled"] is False and started["interaction_id"].startswith("int_")
    ctx = context(started)
    with_ctx = no_capture.call("execute_tool", {**FX, "bkn_context": ctx})
    without = no_capture.call("execute_tool", FX)
    assert with_ctx.status_code == without.status_code == 200
    assert "bkn-operation-id" not in with_ctx.headers and "bkn-trace-recorded" not in without.headers
    finish = no_capture.call("bkn_finish_interaction", {**ctx, "outcome": "completed", "answer": "ok"})
    assert finish.status_code == 200
    view = read_interaction(no_capture, ctx["interaction_id"])
    assert view["operations"] == [] and view["status"] != "active"
