"""begin and complete: operation keys, idempotency, pending receipts, limits, evidence."""

from __future__ import annotations

import pytest

from bkn_common import events as ev
from bkn_common.errors import ApiError
from trace_recorder.domain.rules import evidence_id, operation_key
from trace_recorder.service_layer.interactions import FinishCommand
from trace_recorder.service_layer.operations import CompleteCommand, EvidenceItem

RETRIEVAL = EvidenceItem("retrieval", {"query_hash": "qh", "candidates": 2, "truncated": False},
                         ("object_instance:kn1:ot1:a", "object_instance:kn1:ot1:b"))


async def refused(coro, code: str, status: int) -> ApiError:
    with pytest.raises(ApiError) as info:
        await coro
    assert (info.value.code, info.value.status) == (code, status)
    return info.value


def complete(op_id: str, status: str = "completed", **kw) -> CompleteCommand:
    return CompleteCommand(account=kw.pop("account", "alice"), operation_id=op_id,
                           receipt_status=status, **kw)  # type: ignore[arg-type]


async def test_begin_derives_the_key_and_records_a_pending_operation(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    assert begun["status"] == "new"
    assert (begun["receipt_status"], begun["evidence_durability"]) == ("pending", "pending")
    op = rig.store.operations[begun["operation_id"]]
    assert op.operation_key == operation_key(started["interaction_id"], "call-1",
                                             "query_object_instance")
    await rig.core.drain()  # the pending record is published off the caller's path
    assert rig.sink.of_type(ev.OperationRecorded)[0].receipt_status == "pending"


async def test_ids_must_come_from_start_for_this_account(rig) -> None:
    started = await rig.start()
    await refused(rig.begin({**started, "interaction_id": "int_invented"}),
                  "interaction_not_found", 404)
    await refused(rig.begin({**started, "conversation_id": "conv_other"}),
                  "interaction_not_found", 404)
    await refused(rig.begin(started, account="bob"), "interaction_not_found", 404)


async def test_begin_on_a_finished_interaction_is_refused(rig) -> None:
    started = await rig.start()
    await rig.lifecycle.finish(FinishCommand("alice", started["conversation_id"],
                                             started["interaction_id"], "cancelled",
                                             reason="user left"))
    error = await refused(rig.begin(started), "interaction_not_active", 409)
    assert error.details["status"] == "finished"


async def test_same_key_pending_conflicting_and_replayed(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    pending = await refused(rig.begin(started), "receipt_pending", 409)
    assert pending.details["operation_id"] == begun["operation_id"]
    await refused(rig.begin(started, input_hash="other"), "idempotency_conflict", 409)
    await rig.operations.complete(complete(begun["operation_id"], result={"rows": [1, 2]},
                                           evidence=(RETRIEVAL,)))
    replay = await rig.begin(started)
    assert replay == {"status": "replay", "operation_id": begun["operation_id"],
                      "receipt_id": begun["receipt_id"], "receipt_status": "completed",
                      "stored_result": {"rows": [1, 2]}, "result_omitted": False}
    await refused(rig.begin(started, input_hash="other"), "idempotency_conflict", 409)
    assert len(rig.store.operations) == 1


async def test_an_abandoned_pending_operation_is_taken_over_by_its_retry(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    rig.clock.advance(rig.policy.pending_timeout_seconds + 1)
    resumed = await rig.begin(started)
    assert resumed == {**begun, "resumed": True}


async def test_the_operation_limit(rig) -> None:
    rig.rebuild(max_operations_per_interaction=3)
    started = await rig.start()
    for n in range(3):
        await rig.begin(started, correlation=f"c{n}")
    error = await refused(rig.begin(started, correlation="c3"), "operation_limit_exceeded", 409)
    assert error.params["limit"] == 3
    assert rig.store.operation_count(started["interaction_id"]) == 3
    rig.coordination._values.clear()  # a lost counter does not lift the limit
    await refused(rig.begin(started, correlation="c4"), "operation_limit_exceeded", 409)


async def test_complete_publishes_evidence_with_deterministic_ids(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    done = await rig.operations.complete(complete(
        begun["operation_id"], result={"rows": 1}, evidence=(RETRIEVAL, RETRIEVAL),
        execution_receipt_id="rcpt_x"))
    assert done == {"operation_id": begun["operation_id"], "receipt_id": begun["receipt_id"],
                    "receipt_status": "completed", "evidence_durability": "durable"}
    ids = [e.evidence_id for e in rig.sink.of_type(ev.EvidenceRecorded)]
    assert ids == [evidence_id(started["interaction_id"], begun["operation_id"], "retrieval", n)
                   for n in (1, 2)]
    stored = rig.store.evidence_of(begun["operation_id"])
    assert stored[0].source_refs == ["object_instance:kn1:ot1:a", "object_instance:kn1:ot1:b"]
    assert rig.store.operations[begun["operation_id"]].execution_receipt_id == "rcpt_x"


async def test_complete_is_idempotent_and_refuses_a_different_status(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    first = await rig.operations.complete(complete(begun["operation_id"], evidence=(RETRIEVAL,)))
    assert await rig.operations.complete(complete(begun["operation_id"])) == first
    assert len(rig.sink.of_type(ev.EvidenceRecorded)) == 1
    await refused(rig.operations.complete(complete(begun["operation_id"], "failed")),
                  "idempotency_conflict", 409)


async def test_complete_unknown_or_foreign_operation(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    await refused(rig.operations.complete(complete("op_nope")), "operation_not_found", 404)
    await refused(rig.operations.complete(complete(begun["operation_id"], account="bob")),
                  "operation_not_found", 404)


async def test_a_failed_publish_reports_failed_durability_and_a_retry_repairs_it(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    rig.sink.fail_with = RuntimeError("broker down")
    failed = await rig.operations.complete(complete(begun["operation_id"], evidence=(RETRIEVAL,)))
    assert failed["evidence_durability"] == "failed"
    assert not rig.store.operations[begun["operation_id"]].final
    rig.sink.fail_with = None
    again = await rig.operations.complete(complete(begun["operation_id"], evidence=(RETRIEVAL,)))
    assert again["evidence_durability"] == "durable"
    assert rig.store.counts()["evidence"] == 1


async def test_results_over_the_cap_are_not_stored(rig) -> None:
    rig.rebuild(max_result_bytes=100)
    started = await rig.start()
    begun = await rig.begin(started)
    await rig.operations.complete(complete(begun["operation_id"], result="x" * 200))
    replay = await rig.begin(started)
    assert (replay["stored_result"], replay["result_omitted"]) == (None, True)


async def test_a_begin_on_an_interaction_superseded_by_a_newer_one_is_refused(rig) -> None:
    first = await rig.start()
    rig.clock.advance(rig.policy.lease_seconds + 1)
    await rig.start(conversation_mode="continue", conversation_id=first["conversation_id"])
    error = await refused(rig.begin(first), "interaction_not_active", 409)
    assert error.details["status"] == "abandoned"


async def test_begin_after_a_lapsed_but_uncontested_lease_retakes_it(rig) -> None:
    first = await rig.start()
    rig.clock.advance(rig.policy.lease_seconds + 1)
    assert (await rig.begin(first))["status"] == "new"
    await refused(rig.start(conversation_mode="continue",
                            conversation_id=first["conversation_id"]), "interaction_active", 409)
