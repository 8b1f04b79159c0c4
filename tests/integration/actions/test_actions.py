"""Actions over the real mesh: get_action_info, execute_action end to end through Kafka and
tool-executor (counted on the finance upstream), partial failures, duplicate submissions,
redelivery (a re-published request, a graceful restart mid-run, a killed worker), paging."""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import ACTIONS
from tests.integration.actions.helpers import (
    KN,
    action_events,
    execute_action,
    execution,
    finance_stats,
    objects,
    ok,
    outcome,
    po,
    publish,
    refused,
    start_interaction,
    wait_finished,
    wait_until,
)
from tests.support.mesh import RunningMesh

SLOW = "act_slow_probe"
ORDERS = {o["po_id"]: o for o in objects("purchase_order")}
_unused = iter(sorted(ORDERS))
SUBMITTED: list[tuple[str, str]] = []  # (action type, execution id) of this module's executions


def take(n: int) -> list[str]:
    """``n`` purchase orders no other test here acts on (keeps submissions distinct)."""
    return [next(_unused) for _ in range(n)]


def submit(
    mesh: RunningMesh,
    context: dict[str, str],
    at_id: str,
    po_ids: list[str],
    parameters: dict[str, Any] | None = None,
) -> str:
    data = ok(execute_action(mesh, context, at_id, [po(p) for p in po_ids], parameters))
    assert data["status"] == "pending" and data["target_count"] == len(po_ids)
    SUBMITTED.append((at_id, data["execution_id"]))
    return str(data["execution_id"])


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


@pytest.fixture(scope="module", autouse=True)
def slow_action(mesh: RunningMesh) -> Iterator[None]:
    """An extra action type: the finance slow_op per order, ``seconds`` a required input."""
    publish(
        mesh,
        ev.ActionTypeUpserted(
            kn_id=KN,
            id=SLOW,
            name="slow probe",
            description="sleeps per order (tests)",
            object_type_id="purchase_order",
            toolbox_id="box_finance",
            tool_id="tool_slow_op",
            mode="per_instance",
            parameters={"seconds": {"value_from": "input"}},
        ),
    )
    wait_until(
        lambda: (
            mesh.call(
                "get_action_info",
                {"kn_id": KN, "at_id": SLOW, "_instance_identity": [po("PO-2024-0001")]},
            ).status_code
            == 200
        )
    )
    yield


# -- get_action_info ------------------------------------------------------------------------


def test_action_info_is_a_function_definition_with_the_instances_pre_bound(
    mesh: RunningMesh,
) -> None:
    ids = ["PO-2024-0017", "PO-2025-0030"]
    data = ok(
        mesh.call(
            "get_action_info",
            {"kn_id": KN, "at_id": "act_settle_po", "_instance_identity": [po(i) for i in ids]},
        )
    )
    assert data["action_type"]["mode"] == "per_instance"
    assert data["tool_status"] == {"bound": True, "gate_passed": True, "gate_reason": None}
    [tool] = data["tools"]
    function = tool["function"]
    assert tool["type"] == "function" and function["name"] == "act_settle_po"
    assert "结算" in function["description"] or "settle" in function["description"].lower()
    properties = function["parameters"]["properties"]
    assert properties["_instance_identities"]["const"] == [po(i) for i in ids]
    assert properties["at_id"]["const"] == "act_settle_po"
    inputs = properties["dynamic_params"]
    assert inputs["properties"]["X-Settlement-Channel"]["type"] == "string"
    assert inputs["required"] == [] and inputs["additionalProperties"] is False
    assert data["calls"] == [
        {
            "_instance_identities": [po(i)],
            "bound_arguments": {
                "order_id": i,
                "currency": ORDERS[i]["currency"],
                "amount": ORDERS[i]["amount"],
            },
        }
        for i in ids
    ]
    once = ok(
        mesh.call(
            "get_action_info",
            {
                "kn_id": KN,
                "at_id": "act_fx_rates_snapshot",
                "_instance_identity": [po(i) for i in ids],
            },
        )
    )
    assert once["calls"] == [
        {"_instance_identities": [po(i) for i in ids], "bound_arguments": {"base": "CNY"}}
    ]
    slow = ok(
        mesh.call(
            "get_action_info", {"kn_id": KN, "at_id": SLOW, "_instance_identity": [po(ids[0])]}
        )
    )
    assert slow["tools"][0]["function"]["parameters"]["properties"]["dynamic_params"]["required"] == [
        "seconds"
    ]


def test_action_info_refuses_unknown_types_and_instances(mesh: RunningMesh) -> None:
    refused(
        mesh.call(
            "get_action_info",
            {"kn_id": KN, "at_id": "act_nope", "_instance_identity": [po("PO-2024-0001")]},
        ),
        404,
        "action_type_not_found",
    )
    body = refused(
        mesh.call(
            "get_action_info",
            {"kn_id": KN, "at_id": "act_settle_po", "_instance_identity": [po("PO-1999-0001")]},
        ),
        404,
        "instance_not_found",
    )
    assert body["details"]["missing"] == [po("PO-1999-0001")]


# -- execute_action -------------------------------------------------------------------------


def test_per_instance_action_settles_each_order_through_kafka_and_tool_executor(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(4)
    before = finance_stats(mesh)["settle_order"]
    response = execute_action(
        mesh, context, "act_settle_po", [po(i) for i in ids], {"X-Settlement-Channel": "swift"}
    )
    accepted = ok(response)
    assert accepted["execution_id"].startswith("aex_") and accepted["mode"] == "per_instance"
    assert response.headers.get("bkn-receipt-id")  # a managed operation recorded the submission
    SUBMITTED.append(("act_settle_po", accepted["execution_id"]))
    record = wait_finished(mesh, accepted["execution_id"])
    assert outcome(record) == ("completed", 4, 0)
    assert finance_stats(mesh)["settle_order"] == before + 4
    assert [r["identity"] for r in record["results"]] == [po(i) for i in ids]
    for order_id, result in zip(ids, record["results"], strict=True):
        body = result["result"]
        assert result["success"] and result["error"] is None
        assert (body["order_id"], body["status"], body["channel"]) == (order_id, "settled", "swift")
        assert body["currency"] == ORDERS[order_id]["currency"]
    assert (record["caller"], record["parameters"], record["targets"]) == (
        "dev",
        {"X-Settlement-Channel": "swift"},
        [po(i) for i in ids],
    )
    kinds = [
        (type(e).__name__, getattr(e, "status", None))
        for e in action_events(mesh, accepted["execution_id"])
    ]
    assert kinds[0] == ("ActionExecutionRequested", None)
    assert kinds[1] == ("ActionExecutionUpdated", "running")
    assert kinds[-1] == ("ActionExecutionUpdated", "completed")


def test_once_mode_calls_the_tool_once_for_every_target(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(3)
    before = finance_stats(mesh)["get_rates"]
    record = wait_finished(mesh, submit(mesh, context, "act_fx_rates_snapshot", ids))
    assert finance_stats(mesh)["get_rates"] == before + 1
    assert outcome(record) == ("completed", 3, 0)
    assert all(r["result"]["base"] == "CNY" for r in record["results"])


def test_completed_does_not_mean_every_instance_succeeded(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    good = take(1)[0]
    bad = f"PO-TEST-GBP-{uuid.uuid4().hex[:6]}"
    publish(
        mesh,
        ev.ObjectInstanceUpserted(
            kn_id=KN,
            ot_id="purchase_order",
            id=bad,
            properties={**ORDERS[good], "po_id": bad, "currency": "GBP"},
        ),
    )
    wait_until(
        lambda: (
            mesh.call(
                "get_action_info",
                {"kn_id": KN, "at_id": "act_settle_po", "_instance_identity": [po(bad)]},
            ).status_code
            == 200
        )
    )
    before = finance_stats(mesh)["settle_order"]
    record = wait_finished(mesh, submit(mesh, context, "act_settle_po", [good, bad]))
    assert outcome(record) == ("completed", 1, 1)
    ok_result, failed = record["results"]
    assert ok_result["success"] and not failed["success"]
    assert failed["error"] == "tool_error"
    assert failed["result"]["status_code"] == 422
    assert failed["result"]["body"]["error"] == "unsupported_currency"
    assert finance_stats(mesh)["settle_order"] == before + 2  # both reached the upstream


def test_same_submission_within_the_window_is_refused(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(2)
    first = submit(mesh, context, "act_settle_po", ids)
    body = refused(
        execute_action(mesh, context, "act_settle_po", [po(i) for i in reversed(ids)]),
        409,
        "duplicate_action_submission",
    )
    assert body["details"]["execution_id"] == first
    other = start_interaction(mesh)  # another interaction of the same caller: still a duplicate
    refused(
        execute_action(mesh, other, "act_settle_po", [po(i) for i in ids]),
        409,
        "duplicate_action_submission",
    )
    second = submit(mesh, context, "act_settle_po", ids, {"X-Settlement-Channel": "alipay"})
    assert second != first  # different parameters: a different submission
    invocation = {"X-OpenBKN-Client-Invocation-Id": f"inv-{uuid.uuid4().hex}"}
    retried_ids = take(1)
    body_in = {
        "kn_id": KN,
        "at_id": "act_settle_po",
        "_instance_identity": [po(retried_ids[0])],
        "bkn_context": context,
    }
    original = ok(mesh.call("execute_action", body_in, "dev", **invocation))
    replayed = ok(mesh.call("execute_action", body_in, "dev", **invocation))
    assert replayed["execution_id"] == original["execution_id"]  # a retry, not a duplicate
    SUBMITTED.append(("act_settle_po", original["execution_id"]))
    for execution_id in (first, second, original["execution_id"]):
        assert wait_finished(mesh, execution_id)["status"] == "completed"


def test_inputs_instances_and_permissions_are_checked_before_publishing(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(1)
    listed = ok(mesh.call("list_action_executions", {"kn_id": KN}))["total_count"]
    body = refused(execute_action(mesh, context, SLOW, [po(ids[0])]), 400, "MISSING_INPUT_PARAMS")
    assert body["details"]["missing"] == [{"action_type_id": SLOW, "params": [{"name": "seconds"}]}]
    refused(
        execute_action(mesh, context, SLOW, [po(ids[0])], {"seconds": 0, "speed": 2}),
        400,
        "INVALID_INPUT_PARAMS",
    )
    refused(
        execute_action(mesh, context, "act_settle_po", [po("PO-1999-0001")]),
        404,
        "instance_not_found",
    )
    refused(
        execute_action(mesh, context, "act_settle_po", [po(ids[0]), po(ids[0])]),
        400,
        "invalid_instance_identity",
    )
    viewer = start_interaction(mesh, "viewer")
    body = refused(
        execute_action(mesh, viewer, "act_settle_po", [po(ids[0])], account="viewer"),
        403,
        "network_permission_denied",
    )
    assert body["details"]["missing_permission"] == "execute"
    refused(execute_action(mesh, None, "act_settle_po", [po(ids[0])]), 400, "conversation_required")
    assert ok(mesh.call("list_action_executions", {"kn_id": KN}))["total_count"] == listed
    refused(
        mesh.call("get_action_execution", {"kn_id": KN, "execution_id": "aex_nope"}),
        404,
        "action_execution_not_found",
    )


# -- redelivery -----------------------------------------------------------------------------


async def _republish(mesh: RunningMesh, event: ev.Event) -> tuple[int, int]:
    producer = AIOKafkaProducer(
        bootstrap_servers=mesh.layout.kafka, acks="all", enable_idempotence=True
    )
    await producer.start()
    try:
        meta = await producer.send_and_wait(
            ACTIONS.full_name(mesh.layout.topic_prefix), encode_event(event), key=event_key(event)
        )
        return meta.partition, meta.offset
    finally:
        await producer.stop()


async def _committed(mesh: RunningMesh, partition: int) -> int:
    prefix = mesh.layout.topic_prefix
    consumer = AIOKafkaConsumer(
        bootstrap_servers=mesh.layout.kafka,
        group_id=f"{prefix}tool-executor.actions",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        return await consumer.committed(TopicPartition(ACTIONS.full_name(prefix), partition)) or 0
    finally:
        await consumer.stop()


def test_a_republished_request_never_runs_twice(mesh: RunningMesh, context: dict[str, str]) -> None:
    ids = take(2)
    execution_id = submit(mesh, context, "act_settle_po", ids)
    done = wait_finished(mesh, execution_id)
    settled = finance_stats(mesh)["settle_order"]
    events = action_events(mesh, execution_id)
    request = next(e for e in events if isinstance(e, ev.ActionExecutionRequested))
    for _ in range(2):  # twice, as an at-least-once producer might
        partition, offset = asyncio.run(_republish(mesh, request))
    wait_until(lambda: asyncio.run(_committed(mesh, partition)) > offset)
    assert finance_stats(mesh)["settle_order"] == settled
    assert execution(mesh, execution_id) == done
    updates = [
        e for e in action_events(mesh, execution_id) if isinstance(e, ev.ActionExecutionUpdated)
    ]
    assert len(updates) == sum(isinstance(e, ev.ActionExecutionUpdated) for e in events)


def test_a_graceful_restart_mid_run_resumes_without_repeating_calls(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(4)
    before = finance_stats(mesh)["slow_op"]
    execution_id = submit(mesh, context, SLOW, ids, {"seconds": 1.5})
    wait_until(lambda: len(execution(mesh, execution_id)["results"]) >= 1, timeout=30)
    assert execution(mesh, execution_id)["status"] == "running"  # the restart comes mid-run
    mesh.restart("tool-executor")
    record = wait_finished(mesh, execution_id, timeout=90)
    assert outcome(record) == ("completed", 4, 0)
    assert finance_stats(mesh)["slow_op"] == before + 4


def test_a_killed_worker_never_resends_the_call_it_was_running(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    ids = take(2)
    before = finance_stats(mesh)["slow_op"]
    execution_id = submit(mesh, context, SLOW, ids, {"seconds": 4})
    wait_until(lambda: finance_stats(mesh)["slow_op"] == before + 1, timeout=30)  # call 1 in flight
    pid = int((mesh.layout.run_dir / "pids" / "tool-executor.pid").read_text())
    os.killpg(pid, signal.SIGKILL)
    mesh.stop("tool-executor")  # reaps the pid file
    mesh.start("tool-executor")
    record = wait_finished(mesh, execution_id, timeout=120)
    assert outcome(record) == ("completed", 1, 1)
    interrupted, resumed = record["results"]
    assert (interrupted["success"], interrupted["error"]) == (False, "interrupted")
    assert resumed["success"]
    assert finance_stats(mesh)["slow_op"] == before + 2  # the interrupted call was not sent again


# -- listing --------------------------------------------------------------------------------


def test_list_pages_newest_first_and_filters_by_action_type(mesh: RunningMesh) -> None:
    for _, execution_id in SUBMITTED:
        wait_finished(mesh, execution_id)
    seen: list[dict[str, Any]] = []
    offset = 0
    while True:
        page = ok(
            mesh.call(
                "list_action_executions",
                {"kn_id": KN, "at_id": "act_settle_po", "limit": 2, "offset": offset},
            )
        )
        assert len(page["executions"]) <= 2
        seen.extend(page["executions"])
        offset += len(page["executions"])
        if not page["has_more"]:
            break
    ids = [e["execution_id"] for e in seen]
    assert len(ids) == len(set(ids)) == page["total_count"]
    assert {i for at, i in SUBMITTED if at == "act_settle_po"} <= set(ids)
    assert not {i for at, i in SUBMITTED if at != "act_settle_po"} & set(ids)
    assert all(e["action_type_id"] == "act_settle_po" and "results" not in e for e in seen)
    times = [e["requested_at"] for e in seen]
    assert times == sorted(times, reverse=True)
    slow = ok(
        mesh.call("list_action_executions", {"kn_id": KN, "at_id": SLOW, "status": "completed"})
    )
    assert {i for at, i in SUBMITTED if at == SLOW} <= {
        e["execution_id"] for e in slow["executions"]
    }
    viewer = ok(mesh.call("list_action_executions", {"kn_id": KN, "limit": 1}, "viewer"))
    assert viewer["total_count"] >= len(SUBMITTED) and len(viewer["executions"]) == 1
