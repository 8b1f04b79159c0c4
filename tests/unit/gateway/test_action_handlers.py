"""The logic-property and action handlers on fakes of their ports: what they ask the internal
services, what they publish, and the duplicate window and pending markers of execute_action."""

from __future__ import annotations

from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.inputs.actions import ExecuteActionInput, GetActionExecutionInput
from gateway.domain.inputs.logic_properties import GetLogicPropertiesInput
from gateway.service_layer import actions, logic_properties
from tests.unit.gateway.fakes import FakePublisher, FakeServices, context, deps

PLAN = "/internal/v1/actions/plan"
GET = "/internal/v1/actions/executions/get"
ACTION = {"id": "at_restock", "name": "restock", "description": "Order more", "mode": "per_instance",
          "toolbox_id": "tb_1", "tool_id": "order"}


def plan(body: dict[str, Any]) -> dict[str, Any]:
    targets = [{"ot_id": "ot_sku", "identity": i} for i in body["identities"]]
    return {"action_type": ACTION, "targets": targets, "input_parameters": [],
            "calls": [{"targets": [n], "arguments": {"qty": 1}} for n in range(len(targets))]}


def not_materialized(body: Any) -> Any:
    """ontology-query's answer for an execution it has no record of (yet)."""
    raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": body["execution_id"]})


def services(*permissions: str) -> FakeServices:
    fake = FakeServices()
    fake.grant(*permissions)
    fake.ontology_query.on("POST", PLAN, plan)
    fake.ontology_query.on("POST", GET, not_materialized)
    return fake


def submission(**changes: Any) -> ExecuteActionInput:
    return ExecuteActionInput.model_validate({
        "kn_id": "kn_1", "at_id": "at_restock", "_instance_identities": [{"sku": "A"}, {"sku": "B"}],
        "dynamic_params": {"qty": 2}, **changes})


async def test_execute_action_publishes_the_plan_and_answers_pending() -> None:
    handler_deps = deps(services("execute", "view_detail"))
    accepted = await actions.execute_action(handler_deps, context(), submission())
    assert (accepted["status"], accepted["target_count"], accepted["mode"]) == ("pending", 2, "per_instance")
    publisher = handler_deps.events
    assert isinstance(publisher, FakePublisher)
    [event] = publisher.published
    assert isinstance(event, ev.ActionExecutionRequested)
    assert (event.execution_id, event.caller, event.action_type_id) == (
        accepted["execution_id"], "alice", "at_restock")
    assert [t.identity for t in event.targets] == [{"sku": "A"}, {"sku": "B"}]
    assert event.parameters["inputs"] == {"qty": 2}
    assert event.parameters["plan"]["calls"] == plan({"identities": [{}, {}]})["calls"]


async def test_the_same_submission_again_is_a_409_naming_the_first() -> None:
    handler_deps = deps(services("execute"))
    first = await actions.execute_action(handler_deps, context(), submission())
    with pytest.raises(ApiError) as refused:
        await actions.execute_action(handler_deps, context(), submission())
    assert (refused.value.code, refused.value.status) == ("duplicate_action_submission", 409)
    assert refused.value.details == {"execution_id": first["execution_id"],
                                     "window_seconds": actions.DUPLICATE_WINDOW_SECONDS}
    assert isinstance(handler_deps.events, FakePublisher) and len(handler_deps.events.published) == 1


@pytest.mark.parametrize("changes", [
    {"dynamic_params": {"qty": 3}},
    {"_instance_identities": [{"sku": "A"}]},
    {"kn_id": "kn_2"},
])
async def test_another_submission_is_not_a_duplicate(changes: dict[str, Any]) -> None:
    handler_deps = deps(services("execute"))
    accepted = [await actions.execute_action(handler_deps, context(), submission()),
                await actions.execute_action(handler_deps, context(), submission(**changes)),
                await actions.execute_action(handler_deps, context("bob"), submission())]  # another caller
    assert isinstance(handler_deps.events, FakePublisher)
    published = [event.execution_id for event in handler_deps.events.published]
    assert published == [answer["execution_id"] for answer in accepted] and len(set(published)) == 3


async def test_targets_in_another_order_are_the_same_submission() -> None:
    handler_deps = deps(services("execute"))
    await actions.execute_action(handler_deps, context(), submission())
    with pytest.raises(ApiError):
        await actions.execute_action(handler_deps, context(), submission(
            _instance_identities=[{"sku": "B"}, {"sku": "A"}]))


async def test_an_unpublished_submission_can_be_sent_again() -> None:
    publisher = FakePublisher(failure=ConnectionError("broker down"))
    handler_deps = deps(services("execute"), events=publisher)
    with pytest.raises(ApiError) as refused:
        await actions.execute_action(handler_deps, context(), submission())
    assert (refused.value.code, refused.value.status) == (ErrorCode.DEPENDENCY_UNAVAILABLE, 503)
    assert refused.value.details == {"dependency": "kafka", "error": "ConnectionError"}
    publisher.failure = None
    accepted = await actions.execute_action(handler_deps, context(), submission())
    assert [e.execution_id for e in publisher.published] == [accepted["execution_id"]]


async def test_without_execute_nothing_is_planned_or_published() -> None:
    fake = services("view_detail")
    handler_deps = deps(fake)
    with pytest.raises(ApiError) as refused:
        await actions.execute_action(handler_deps, context(), submission())
    assert refused.value.status == 403
    assert PLAN not in fake.ontology_query.paths()
    assert isinstance(handler_deps.events, FakePublisher) and handler_deps.events.published == []


async def test_a_fresh_execution_is_answered_from_the_pending_marker() -> None:
    handler_deps = deps(services("execute", "view_detail"))
    accepted = await actions.execute_action(handler_deps, context(), submission())
    record = await actions.get_action_execution(handler_deps, context(), GetActionExecutionInput(
        kn_id="kn_1", execution_id=accepted["execution_id"]))
    assert record == {**accepted, "caller": "alice", "targets": [{"sku": "A"}, {"sku": "B"}],
                      "parameters": {"qty": 2}, "success_count": 0, "failed_count": 0, "results": [],
                      "updated_at": accepted["requested_at"]}


async def test_the_materialized_record_wins_and_other_networks_see_a_404() -> None:
    fake = services("execute", "view_detail")
    handler_deps = deps(fake)
    accepted = await actions.execute_action(handler_deps, context(), submission())
    for kn_id, execution_id in (("kn_2", accepted["execution_id"]), ("kn_1", "aex_unknown")):
        with pytest.raises(ApiError) as missing:
            await actions.get_action_execution(handler_deps, context(), GetActionExecutionInput(
                kn_id=kn_id, execution_id=execution_id))
        assert missing.value.status == 404
    fake.ontology_query.on("POST", GET, {"execution_id": accepted["execution_id"], "status": "running"})
    record = await actions.get_action_execution(handler_deps, context(), GetActionExecutionInput(
        kn_id="kn_1", execution_id=accepted["execution_id"]))
    assert record["status"] == "running"


# -- logic properties -------------------------------------------------------------------------

RESOLVE = "/internal/v1/logic-properties/resolve"
EXECUTE = "/internal/v1/execute"


def logic_services(*permissions: str, outcomes: dict[str, dict[str, Any]]) -> FakeServices:
    fake = FakeServices()
    fake.grant(*permissions)
    fake.ontology_query.on("POST", RESOLVE, lambda body: {
        "object_type_id": body["ot_id"],
        "properties": [{"name": "stock", "kind": "metric"}, {"name": "price", "kind": "operator"}],
        "rows": [{"_instance_identity": i, "values": {"stock": n}} for n, i in enumerate(body["identities"])],
        "operator_calls": [{"row": n, "property": "price", "toolbox_id": "tb", "tool_id": "quote",
                            "arguments": {"sku": i["sku"]}} for n, i in enumerate(body["identities"])],
    })
    fake.tool_executor.on("POST", EXECUTE, lambda body: outcomes[body["arguments"]["sku"]])
    return fake


def logic_args(*skus: str) -> GetLogicPropertiesInput:
    return GetLogicPropertiesInput.model_validate({
        "kn_id": "kn_1", "ot_id": "ot_sku", "properties": ["stock", "price"],
        "_instance_identities": [{"sku": s} for s in skus]})


async def test_operator_values_align_with_their_instances() -> None:
    outcomes = {
        "A": {"outcome": "succeeded", "status_code": 200, "body": 9.5, "receipt_id": "r_a"},
        "B": {"outcome": "succeeded", "status_code": 502, "body": {"e": "bad"}, "receipt_id": "r_b"},
    }
    fake = logic_services("view_detail", "execute", outcomes=outcomes)
    data = await logic_properties.get_logic_properties_values(deps(fake), context(), logic_args("A", "B"))
    assert data["datas"] == [
        {"_instance_identity": {"sku": "A"}, "stock": 0, "price": 9.5, "_receipts": {"price": "r_a"}},
        {"_instance_identity": {"sku": "B"}, "stock": 1, "price": None, "_receipts": {"price": "r_b"},
         "_errors": {"price": {"code": "succeeded", "status_code": 502, "body": {"e": "bad"}}}},
    ]
    assert [c.account for c in fake.tool_executor.calls] == ["alice", "alice"]
    evidence = logic_properties.logic_evidence(logic_args("A", "B"), data)
    assert evidence["source_refs"] == ["object:kn_1:ot_sku:A", "object:kn_1:ot_sku:B",
                                       "execution_receipt:r_a", "execution_receipt:r_b"]


async def test_an_operator_property_needs_execute() -> None:
    fake = logic_services("view_detail", outcomes={})
    with pytest.raises(ApiError) as refused:
        await logic_properties.get_logic_properties_values(deps(fake), context(), logic_args("A"))
    assert refused.value.status == 403
    assert fake.tool_executor.calls == []


async def test_logic_properties_need_instances() -> None:
    fake = logic_services("view_detail", "execute", outcomes={})
    with pytest.raises(ApiError) as refused:
        await logic_properties.get_logic_properties_values(deps(fake), context(), logic_args())
    assert (refused.value.code, refused.value.status) == (ErrorCode.INVALID_REQUEST, 400)
    assert RESOLVE not in fake.ontology_query.paths()
