"""begin and complete: operation keys, idempotency, pending receipts, limits, evidence."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.events import decode_event, encode_event
from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.domain.rules import evidence_id, operation_id_for, operation_key, receipt_id_for
from trace_recorder.service_layer.interactions import FinishCommand
from trace_recorder.service_layer.operations import CompleteCommand, EvidenceItem
from trace_recorder.service_layer.ports import OperationClaim

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)

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
    [final] = [r for r in rig.sink.of_type(ev.OperationRecorded) if r.receipt_status != "pending"]
    assert final.receipt_status == "completed"  # completion and evidence: one record
    assert not rig.sink.of_type(ev.EvidenceRecorded)
    ids = [e.evidence_id for e in final.evidence]
    assert ids == [evidence_id(started["interaction_id"], begun["operation_id"], "retrieval", n)
                   for n in (1, 2)]
    assert final.begun_at is not None
    assert final.begun_at.isoformat() == rig.store.operations[begun["operation_id"]].begun_at
    stored = rig.store.evidence_of(begun["operation_id"])
    assert stored[0].source_refs == ["object_instance:kn1:ot1:a", "object_instance:kn1:ot1:b"]
    assert rig.store.operations[begun["operation_id"]].execution_receipt_id == "rcpt_x"


async def test_complete_is_idempotent_and_refuses_a_different_status(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    first = await rig.operations.complete(complete(begun["operation_id"], evidence=(RETRIEVAL,)))
    assert await rig.operations.complete(complete(begun["operation_id"])) == first
    assert [len(r.evidence) for r in rig.sink.of_type(ev.OperationRecorded)
            if r.receipt_status != "pending"] == [1]
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


# ---------------------------------------------------------------- begin's coordination


class Recording(MemoryCoordination):
    """The in-memory port, recording which of its calls begin makes; ``during_claim`` runs
    between the claim and its answer (what another instance or the projection does then)."""

    def __init__(self, clock) -> None:
        super().__init__(clock=clock)
        self.calls: list[str] = []
        self.during_claim: Callable[[], Awaitable[None]] | None = None

    def __getattribute__(self, name: str) -> Any:
        attr = super().__getattribute__(name)
        if name in ("get", "put", "claim", "release", "delete", "incr", "decr", "lock"):
            super().__getattribute__("calls").append(name)
        return attr

    async def claim_operation(self, *args: Any, **kw: Any) -> OperationClaim:
        self.calls.append("claim_operation")
        claim = await super().claim_operation(*args, **kw)
        if self.during_claim is not None:
            await self.during_claim()
        return claim


@pytest.fixture
def recording(rig) -> Recording:
    rig.coordination = Recording(rig.clock.seconds)
    rig.rebuild()
    return rig.coordination


def pending_record(started: dict, correlation: str, input_hash: str = "h1"):
    key = operation_key(started["interaction_id"], correlation, "query_object_instance")
    event = ev.OperationRecorded(
        operation_id=operation_id_for(key), operation_key=key,
        conversation_id=started["conversation_id"], interaction_id=started["interaction_id"],
        tool_name="query_object_instance", input_hash=input_hash,
        receipt_id=receipt_id_for(key), receipt_status="pending",
        evidence_durability="pending", recorded_at=EPOCH, correlation=correlation)
    return decode_event(encode_event(event))


async def test_a_new_operation_takes_one_coordination_call(rig, recording) -> None:
    started = await rig.start()
    recording.calls.clear()
    begun = await rig.begin(started)
    assert recording.calls == ["claim_operation"]
    key = rig.store.operations[begun["operation_id"]].operation_key
    assert await recording.get(f"op:{key}") == "h1"  # in flight until the store holds it
    assert await recording.get(f"opcount:{started['interaction_id']}") == "1"
    assert await recording.get(f"lease:{started['conversation_id']}") == started["interaction_id"]
    await rig.operations.complete(complete(begun["operation_id"]))
    recording.calls.clear()
    assert (await rig.begin(started))["status"] == "replay"
    assert recording.calls == ["claim_operation"]


async def test_concurrent_begins_of_one_key(rig) -> None:
    started = await rig.start()
    results = await asyncio.gather(rig.begin(started), rig.begin(started),
                                   rig.begin(started, input_hash="other"),
                                   return_exceptions=True)
    assert results[0]["status"] == "new"
    assert [getattr(r, "code", None) for r in results[1:]] == ["receipt_pending",
                                                               "idempotency_conflict"]
    assert await rig.coordination.get(f"opcount:{started['interaction_id']}") == "1"


async def test_a_refused_begin_leaves_nothing_behind(rig) -> None:
    rig.rebuild(max_operations_per_interaction=1)
    started = await rig.start()
    counter = f"opcount:{started['interaction_id']}"
    await rig.begin(started, correlation="c0")
    await refused(rig.begin(started, correlation="c1"), "operation_limit_exceeded", 409)
    assert await rig.coordination.get(counter) == "1"
    lease = f"lease:{started['conversation_id']}"
    await rig.coordination.put(lease, "int_newer")  # another instance's newer interaction
    rig.rebuild(max_operations_per_interaction=2)
    error = await refused(rig.begin(started, correlation="c1"), "interaction_not_active", 409)
    assert error.details == {"interaction_id": started["interaction_id"], "status": "superseded",
                             "active_interaction_id": "int_newer"}
    assert await rig.coordination.get(counter) == "1"
    await rig.coordination.release(lease, "int_newer")
    assert (await rig.begin(started, correlation="c1"))["status"] == "new"  # not pending


async def test_begin_waits_for_a_complete_under_way_and_replays_it(rig) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    gate = asyncio.Event()
    publish = rig.sink.publish

    async def slow_publish(event: ev.Event) -> None:
        await gate.wait()
        await publish(event)

    rig.sink.publish = slow_publish
    completing = asyncio.create_task(rig.operations.complete(complete(
        begun["operation_id"], result={"rows": 3})))
    await asyncio.sleep(0.01)
    retry = asyncio.create_task(rig.begin(started))  # the caller retried meanwhile
    await asyncio.sleep(0.05)
    assert not retry.done()
    gate.set()
    await completing
    replay = await retry
    assert (replay["status"], replay["stored_result"]) == ("replay", {"rows": 3})


async def test_a_begin_cancelled_during_its_claim_gives_the_claim_back(rig, recording) -> None:
    started = await rig.start()
    recording.during_claim = lambda: asyncio.sleep(0.05)  # the reply is on its way
    task = asyncio.create_task(rig.begin(started))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    key = operation_key(started["interaction_id"], "call-1", "query_object_instance")
    assert await recording.get(f"op:{key}") is None
    recording.during_claim = None
    assert (await rig.begin(started))["status"] == "new"


async def test_the_store_catching_up_during_the_claim(rig, recording) -> None:
    """Another instance's record of the same key reaches this store while the claim runs (its
    marker had lapsed): an existing operation after all, not counted."""
    started = await rig.start()

    async def projected() -> None:
        rig.store.apply(pending_record(started, "call-1"))

    recording.during_claim = projected
    await refused(rig.begin(started), "receipt_pending", 409)
    assert await recording.get(f"opcount:{started['interaction_id']}") == "0"
    assert len(rig.store.operations) == 1


async def test_the_store_filling_up_during_the_claim(rig, recording) -> None:
    rig.rebuild(max_operations_per_interaction=1)
    started = await rig.start()

    async def projected() -> None:
        rig.store.apply(pending_record(started, "elsewhere"))

    recording.during_claim = projected
    await refused(rig.begin(started), "operation_limit_exceeded", 409)
    key = operation_key(started["interaction_id"], "call-1", "query_object_instance")
    assert await recording.get(f"op:{key}") is None
    assert await recording.get(f"opcount:{started['interaction_id']}") == "0"


async def test_a_begin_the_log_does_not_acknowledge_is_trace_core_unavailable_and_leaves_nothing(rig) -> None:
    """Kafka away: a 503 the gateway runs the call unrecorded on (it was a 500 internal_error)."""
    rig.rebuild(pending_record_delay_seconds=0)  # with a delay the begin publishes nothing
    started = await rig.start()
    rig.sink.fail_with = RuntimeError("broker down")
    await refused(rig.begin(started), "trace_core_unavailable", 503)
    assert rig.store.operations == {}
    rig.sink.fail_with = None
    assert (await rig.begin(started))["status"] == "new"  # the claim was given back
