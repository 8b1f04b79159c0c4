"""The operator read API on a real mesh: filters, newest first, cursor pages, one interaction
whole, its evidence chain, receipt and operation by id, the access rules (an account reads only
its own, an operator reads all, no credential is 401), projections and dead letters."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer

from bkn_common.contracts.topics import TRACE
from tests.integration.observability.support import (
    API,
    FX,
    eventually,
    operator,
    settled,
    turn,
    two_tool_turn,
)
from tests.support.mesh import RunningMesh


@pytest.fixture(scope="module")
def turns(mesh: RunningMesh) -> dict[str, dict[str, str]]:
    dev = two_tool_turn(mesh)
    analyst = turn(mesh, "analyst", "analyst-agent",
                   [("search_capabilities", {"kn_id": "supply_chain", "query": "汇率"})])
    dev_again = turn(mesh, "dev", "second-agent", [("execute_tool", FX)])
    with operator(mesh) as client:
        for ids in (dev, analyst, dev_again):
            eventually(lambda i=ids: client.get(f"{API}/interactions/{i['interaction_id']}").json(), settled)
    return {"dev": dev, "analyst": analyst, "dev_again": dev_again}


def _ids(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [i["interaction_id"] for i in response.json()["items"]]


def _refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["message"] and body["request_id"]
    return body


def test_no_credential_is_401_in_the_envelope(mesh: RunningMesh) -> None:
    with httpx.Client(base_url=mesh.gateway, timeout=30) as anonymous:
        for path in ("/interactions", "/projections", "/receipts/x", "/interactions/int_x/bundle"):
            _refused(anonymous.get(API + path, headers={"Accept-Language": "en-US"}), 401, "unauthenticated")


def test_an_account_lists_only_its_own_and_an_operator_all(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    mine = {turns["dev"]["interaction_id"], turns["dev_again"]["interaction_id"]}
    theirs = turns["analyst"]["interaction_id"]
    with mesh.client("dev") as dev, operator(mesh) as ops:
        assert set(_ids(dev.get(f"{API}/interactions"))) == mine
        _refused(dev.get(f"{API}/interactions", params={"account": "analyst"}), 403, "permission_denied")
        everyone = _ids(ops.get(f"{API}/interactions"))
        assert mine | {theirs} <= set(everyone)
        assert _ids(ops.get(f"{API}/interactions", params={"account": "analyst"})) == [theirs]


def test_filters_and_newest_first(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    dev, dev_again = turns["dev"]["interaction_id"], turns["dev_again"]["interaction_id"]
    with operator(mesh) as ops:
        listed = ops.get(f"{API}/interactions", params={"account": "dev"}).json()["items"]
        assert [i["interaction_id"] for i in listed] == [dev_again, dev]  # newest first
        assert listed[1]["operations"] == 2 and listed[1]["question"]
        assert _ids(ops.get(f"{API}/interactions", params={"agent": "second-agent"})) == [dev_again]
        fx = {"account": "dev", "tool": "tool_fx_convert"}
        assert _ids(ops.get(f"{API}/interactions", params=fx)) == [dev_again, dev]
        searched = _ids(ops.get(f"{API}/interactions", params={"tool": "search_capabilities"}))
        assert searched == [turns["analyst"]["interaction_id"]]
        assert set(_ids(ops.get(f"{API}/interactions", params={"kn_id": "supply_chain"}))) == {dev, dev_again}
        assert set(_ids(ops.get(f"{API}/interactions", params={"outcome": "completed"}))) >= {dev, dev_again}
        assert _ids(ops.get(f"{API}/interactions", params={"outcome": "cancelled"})) == []
        assert _ids(ops.get(f"{API}/interactions", params={"since": "2999-01-01T00:00:00Z"})) == []
        assert dev in _ids(ops.get(f"{API}/interactions",
                                   params={"since": listed[1]["started_at"], "until": listed[0]["started_at"]}))
        _refused(ops.get(f"{API}/interactions", params={"since": "yesterday"}), 400, "invalid_request")
        conversations = ops.get(f"{API}/conversations", params={"tool": "search_capabilities"}).json()["items"]
        assert [c["conversation_id"] for c in conversations] == [turns["analyst"]["conversation_id"]]


def test_cursor_pages_walk_every_interaction_once(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    with operator(mesh) as ops:
        whole = _ids(ops.get(f"{API}/interactions"))
        seen: list[str] = []
        params: dict[str, Any] = {"limit": 1}
        while True:
            page = ops.get(f"{API}/interactions", params=params).json()
            seen += [i["interaction_id"] for i in page["items"]]
            if page["next_cursor"] is None:
                break
            params = {"limit": 1, "cursor": page["next_cursor"]}
        assert seen == whole and len(seen) >= 3
        _refused(ops.get(f"{API}/interactions", params={"cursor": "bogus"}), 400, "invalid_request")


def test_one_interaction_whole_and_its_chain(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    iid = turns["dev"]["interaction_id"]
    with operator(mesh) as ops, mesh.client("dev") as dev:
        whole = ops.get(f"{API}/interactions/{iid}").json()
        assert dev.get(f"{API}/interactions/{iid}").json()["interaction_id"] == iid  # its own
        assert whole["execution_status"] and whole["answer"] == "72 CNY"
        operations = whole["operations"]
        assert [o["begun_at"] for o in operations] == sorted(o["begun_at"] for o in operations)
        statuses = sorted(o["receipt_status"] for o in operations)
        assert statuses == ["completed", "failed"]
        assert whole["span_tree"] and all("children" in node for node in whole["span_tree"])
        chain = ops.get(f"{API}/interactions/{iid}/evidence-chain").json()
        assert [o["operation_id"] for o in chain["operations"]] == [o["operation_id"] for o in operations]
        link = chain["operations"][0]
        assert set(link) >= {"receipt", "evidence", "tool_name"} and link["receipt"]["receipt_id"]
        listed = ops.get(f"{API}/interactions/{iid}/operations").json()["items"]
        assert [o["operation_id"] for o in listed] == [o["operation_id"] for o in operations]

        op = operations[0]
        by_id = ops.get(f"{API}/operations/{op['operation_id']}").json()
        assert (by_id["operation_id"], by_id["account"]) == (op["operation_id"], "dev")
        execution = op["execution_receipts"][0]["receipt_id"]
        receipt = ops.get(f"{API}/receipts/{execution}").json()
        assert (receipt["receipt_id"], receipt["interaction_id"]) == (execution, iid)
        assert dev.get(f"{API}/receipts/{execution}").status_code == 200
        _refused(ops.get(f"{API}/receipts/exec_missing"), 404, "not_found")
        _refused(ops.get(f"{API}/operations/op_missing"), 404, "operation_not_found")


def test_another_accounts_records_are_403_for_an_account(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    theirs = turns["analyst"]
    with mesh.client("dev", **{"Accept-Language": "zh-CN"}) as dev, operator(mesh) as ops:
        body = _refused(dev.get(f"{API}/interactions/{theirs['interaction_id']}"), 403, "permission_denied")
        assert "权限" in body["message"]
        _refused(dev.get(f"{API}/interactions/{theirs['interaction_id']}/evidence-chain"), 403, "permission_denied")
        _refused(dev.get(f"{API}/conversations/{theirs['conversation_id']}"), 403, "permission_denied")
        operation = ops.get(f"{API}/interactions/{theirs['interaction_id']}").json()["operations"][0]
        _refused(dev.get(f"{API}/operations/{operation['operation_id']}"), 403, "permission_denied")
        assert ops.get(f"{API}/interactions/{theirs['interaction_id']}").status_code == 200
        _refused(dev.get(f"{API}/projections"), 403, "permission_denied")
        _refused(dev.get(f"{API}/dead-letters"), 403, "permission_denied")


def test_bundle_route_refuses_a_missing_interaction(mesh: RunningMesh) -> None:
    with operator(mesh) as ops:
        _refused(ops.get(f"{API}/interactions/int_missing/bundle"), 404, "interaction_not_found")


def test_projections_and_dead_letters(mesh: RunningMesh, turns: dict[str, dict[str, str]]) -> None:
    with operator(mesh) as ops:
        projections = ops.get(f"{API}/projections").json()["items"]
        by_service = {p["service"]: p for p in projections}
        assert set(by_service) == {"capability-index", "tool-executor", "trace-recorder",
                                   "ontology-query", "knowledge-base"}
        trace = by_service["trace-recorder"]
        assert trace["reachable"] and trace["caught_up"] is True and trace["lag"] >= 0
        assert trace["replay_command"] == "clctl replay trace-recorder --verify"
        assert "checkpoint" in by_service["capability-index"]
        letters = ops.get(f"{API}/dead-letters", params={"limit": 5}).json()["items"]
        assert {d["consumer"] for d in letters} == set(by_service)
        assert all(d["topic"].endswith(f"dlq.{d['consumer']}.v1") and d["records"] == [] for d in letters)


async def _send(servers: str, topic: str, value: bytes) -> tuple[int, int]:
    producer = AIOKafkaProducer(bootstrap_servers=servers)
    await producer.start()
    try:
        sent = await producer.send_and_wait(topic, value, key=b"poison")
    finally:
        await producer.stop()
    return sent.partition, sent.offset


def test_a_poison_record_shows_in_dead_letters(mesh: RunningMesh) -> None:
    topic = TRACE.full_name(mesh.layout.topic_prefix)
    partition, offset = asyncio.run(_send(mesh.layout.kafka, topic, b"not an event <script>x</script>"))
    with operator(mesh) as ops:
        def trace_letters() -> dict[str, Any]:
            items = ops.get(f"{API}/dead-letters", params={"limit": 5}).json()["items"]
            found: dict[str, Any] = next(d for d in items if d["consumer"] == "trace-recorder")
            return found

        letters = eventually(trace_letters, lambda d: bool(d["records"]))
        (record,) = letters["records"]
        assert (record["source_topic"], record["source_partition"], record["source_offset"]) == (
            topic, partition, offset)
        assert record["reason"] and record["first_bytes"] == "not an event <script>x</script>"
        assert record["key"] == "poison" and letters["dead_lettered_since_start"] == 1
        projections = {p["service"]: p for p in ops.get(f"{API}/projections").json()["items"]}
        assert projections["trace-recorder"]["dead_lettered"] == 1


def test_the_dev_mesh_writes_the_operator_key(mesh: RunningMesh) -> None:
    endpoints = json.loads((mesh.layout.run_dir / "endpoints.json").read_text())
    assert endpoints["operator_key"] == mesh.keys["operator"]
    assert endpoints["console_url"] == f"{mesh.gateway}/console/"
    with httpx.Client(base_url=mesh.gateway, timeout=30) as anonymous:
        assert anonymous.get("/console/").headers["location"] == "/console/interactions"
