"""start and finish: conversation modes, host keys, idempotency, leases, capture policy."""

from __future__ import annotations

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from trace_recorder.service_layer.interactions import FinishCommand


async def finish(rig, started, account: str = "alice", **kw):
    args = {"outcome": "completed", "answer": "42", **kw}
    return await rig.lifecycle.finish(FinishCommand(
        account=account, conversation_id=started["conversation_id"],
        interaction_id=started["interaction_id"], **args))


async def refused(coro, code: str, status: int) -> ApiError:
    with pytest.raises(ApiError) as info:
        await coro
    assert (info.value.code, info.value.status) == (code, status)
    return info.value


async def test_new_issues_server_ids_and_records_the_start(rig) -> None:
    started = await rig.start()
    assert started["conversation_id"].startswith("conv_")
    assert started["interaction_id"].startswith("int_")
    assert started | {"conversation_id": "", "interaction_id": ""} == {
        "conversation_id": "", "interaction_id": "", "capture_enabled": True,
        "new_conversation": True, "replayed": False}
    [event] = rig.sink.events
    assert isinstance(event, ev.InteractionStarted) and event.account == "alice"
    assert rig.store.interactions[started["interaction_id"]].active


async def test_mode_rules(rig) -> None:
    await refused(rig.start(conversation_id="conv_x"), "invalid_conversation_mode", 400)
    await refused(rig.start(conversation_mode="continue"), "invalid_conversation_mode", 400)
    await refused(rig.start(conversation_mode="continue", conversation_id="conv_invented"),
                  "conversation_not_found", 404)
    started = await rig.start()
    await refused(rig.start(account="bob", conversation_mode="continue",
                            conversation_id=started["conversation_id"]),
                  "conversation_not_found", 404)
    assert len(rig.store.conversations) == 1


async def test_continue_after_finish_keeps_the_conversation(rig) -> None:
    first = await rig.start()
    await finish(rig, first)
    second = await rig.start(conversation_mode="continue",
                             conversation_id=first["conversation_id"])
    assert second["conversation_id"] == first["conversation_id"]
    assert second["new_conversation"] is False
    assert second["interaction_id"] != first["interaction_id"]


async def test_host_key_maps_one_host_conversation_whatever_the_mode(rig) -> None:
    first = await rig.start(host_conversation_key="host-1")
    await finish(rig, first)
    again = await rig.start(host_conversation_key="host-1", conversation_mode="new")
    assert again["conversation_id"] == first["conversation_id"]
    assert again["new_conversation"] is False
    other_account = await rig.start(account="bob", host_conversation_key="host-1")
    assert other_account["conversation_id"] != first["conversation_id"]


async def test_host_mapping_survives_losing_redis(rig) -> None:
    first = await rig.start(host_conversation_key="host-1")
    await finish(rig, first)
    rig.coordination._values.clear()
    again = await rig.start(host_conversation_key="host-1")
    assert again["conversation_id"] == first["conversation_id"]


async def test_one_active_interaction_per_conversation(rig) -> None:
    first = await rig.start()
    error = await refused(
        rig.start(conversation_mode="continue", conversation_id=first["conversation_id"]),
        "interaction_active", 409)
    assert error.details["active_interaction_id"] == first["interaction_id"]


async def test_an_expired_lease_is_abandoned_and_the_new_start_proceeds(rig) -> None:
    first = await rig.start()
    rig.clock.advance(rig.policy.lease_seconds + 1)
    second = await rig.start(conversation_mode="continue",
                             conversation_id=first["conversation_id"])
    old = rig.store.interactions[first["interaction_id"]]
    assert (old.status, old.outcome, old.reason) == ("abandoned", "abandoned", "lease expired")
    assert rig.store.interactions[second["interaction_id"]].active
    await refused(finish(rig, first), "interaction_finished", 409)


async def test_begin_refreshes_the_lease(rig) -> None:
    first = await rig.start()
    for _ in range(3):
        rig.clock.advance(rig.policy.lease_seconds - 10)
        await rig.begin(first, correlation=str(rig.clock.seconds()))
    await refused(rig.start(conversation_mode="continue",
                            conversation_id=first["conversation_id"]), "interaction_active", 409)


async def test_same_invocation_id_replays_and_different_input_conflicts(rig) -> None:
    first = await rig.start(invocation_id="inv-1")
    again = await rig.start(invocation_id="inv-1")
    assert again == {**first, "replayed": True}
    assert len(rig.sink.events) == 1
    await refused(rig.start(invocation_id="inv-1", question="Something else?"),
                  "idempotency_conflict", 409)
    other = await rig.start(account="bob", invocation_id="inv-1")
    assert other["interaction_id"] != first["interaction_id"]


async def test_invocation_replay_survives_losing_redis(rig) -> None:
    first = await rig.start(invocation_id="inv-1")
    rig.coordination._values.clear()
    assert (await rig.start(invocation_id="inv-1"))["interaction_id"] == first["interaction_id"]
    await refused(rig.start(invocation_id="inv-1", agent_name="other"), "idempotency_conflict", 409)


async def test_capture_disabled_still_issues_real_ids(rig) -> None:
    rig.rebuild(capture_enabled=False)
    started = await rig.start()
    assert started["capture_enabled"] is False
    assert started["interaction_id"] in rig.store.interactions
    assert await rig.begin(started) == {"status": "not_captured"}
    assert rig.store.counts()["operations"] == 0
    result = await finish(rig, started)
    assert (result["evidence_status"], result["execution_status"]) == ("not_captured", "none")


async def test_finish_rules(rig) -> None:
    started = await rig.start()
    await refused(finish(rig, started, answer=None), "answer_required", 400)
    await refused(finish(rig, started, outcome="failed", answer=None), "reason_required", 400)
    await refused(finish(rig, started, account="bob"), "interaction_not_found", 404)
    await refused(finish(rig, {**started, "interaction_id": "int_nope"}),
                  "interaction_not_found", 404)
    result = await finish(rig, started)
    assert result == {"conversation_id": started["conversation_id"],
                      "interaction_id": started["interaction_id"], "outcome": "completed",
                      "execution_status": "none", "evidence_status": "complete", "operations": 0}
    assert await finish(rig, started) == result
    assert len(rig.sink.of_type(ev.InteractionFinished)) == 1
    await refused(finish(rig, started, answer="43"), "interaction_finished", 409)
    await refused(finish(rig, started, outcome="cancelled", answer=None, reason="user left"),
                  "interaction_finished", 409)


async def test_finish_statuses_follow_the_operations_and_gaps(rig) -> None:
    started = await rig.start()
    ok = await rig.begin(started, correlation="a")
    bad = await rig.begin(started, correlation="b")
    from trace_recorder.service_layer.operations import CompleteCommand
    await rig.operations.complete(CompleteCommand("alice", ok["operation_id"], "completed"))
    await rig.operations.complete(CompleteCommand("alice", bad["operation_id"], "failed"))
    result = await finish(rig, started, unrecorded_calls=2)
    assert (result["execution_status"], result["evidence_status"], result["operations"]) == (
        "partial", "partial", 2)


async def test_finish_invocation_id_conflicts_on_different_input(rig) -> None:
    started = await rig.start()
    await finish(rig, started, invocation_id="fin-1")
    assert (await finish(rig, started, invocation_id="fin-1"))["outcome"] == "completed"
    await refused(finish(rig, started, invocation_id="fin-1", answer="other"),
                  "idempotency_conflict", 409)


async def test_a_failed_publish_refuses_start_and_frees_the_lease(rig) -> None:
    first = await rig.start()
    await finish(rig, first)
    rig.sink.fail_with = RuntimeError("broker down")
    await refused(rig.start(conversation_mode="continue",
                            conversation_id=first["conversation_id"]),
                  "trace_core_unavailable", 503)
    rig.sink.fail_with = None
    await rig.start(conversation_mode="continue", conversation_id=first["conversation_id"])


async def test_redis_down_is_reported_as_unavailable(rig) -> None:
    from trace_recorder.service_layer.ports import CoordinationUnavailable
    rig.coordination.available = False
    with pytest.raises(CoordinationUnavailable):
        await rig.start()
    assert rig.sink.events == []
