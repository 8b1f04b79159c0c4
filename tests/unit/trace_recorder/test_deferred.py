"""Deferred pending records (the default): a begun operation's pending record waits in the
coordination store, not in the view; it reaches the log, then the view, only when the
operation is still pending after the delay, at a replica's start or at a clean stop. The view
never holds an operation the log does not have."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.events import decode_event, encode_event
from trace_recorder.bootstrap import _deferring
from trace_recorder.service_layer.interactions import FinishCommand
from trace_recorder.service_layer.operations import CompleteCommand, EvidenceItem, Operations
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.views import interaction_view

DELAY = 2.0
EVIDENCE = EvidenceItem("execution", {"outcome": "ok"}, ("execution_receipt:rcpt_x",))


@pytest.fixture
def rig(rig: Any) -> Any:
    assert Policy().pending_record_delay_seconds == DELAY  # what these tests cover is the default
    rig.rebuild(pending_record_delay_seconds=DELAY)
    return rig


def complete(op_id: str, **kw: Any) -> CompleteCommand:
    return CompleteCommand(account="alice", operation_id=op_id, receipt_status="completed", **kw)


def operation_records(rig: Any) -> list[tuple[str, str]]:
    return [(r.operation_id, r.receipt_status) for r in rig.sink.of_type(ev.OperationRecorded)]


def rebuilt(rig: Any) -> TraceStore:
    store = TraceStore()
    for event in rig.sink.events:
        store.apply(decode_event(encode_event(event)))
    return store


async def test_a_quick_operation_costs_one_record_and_the_view_waits_for_the_log(rig: Any) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    assert (begun["status"], begun["receipt_status"]) == ("new", "pending")
    assert begun["operation_id"] not in rig.store.operations  # not on the log: not in the view
    assert operation_records(rig) == []
    await rig.operations.complete(complete(begun["operation_id"], evidence=(EVIDENCE,),
                                           execution_receipt_id="rcpt_x"))
    assert operation_records(rig) == [(begun["operation_id"], "completed")]
    rig.clock.advance(DELAY * 10)
    assert await rig.operations.pending.publish_due(everything=True) == 0  # forgotten
    assert operation_records(rig) == [(begun["operation_id"], "completed")]
    assert rebuilt(rig).digest() == rig.store.digest()


async def test_one_still_pending_after_the_delay_is_published_by_the_sweep(rig: Any) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    rig.clock.advance(DELAY - 0.5)
    assert await rig.operations.pending.publish_due() == 0  # not due yet
    rig.clock.advance(1.0)
    assert await rig.operations.pending.publish_due() == 1
    assert operation_records(rig) == [(begun["operation_id"], "pending")]
    assert rig.store.operations[begun["operation_id"]].begun_at == rebuilt(rig).operations[
        begun["operation_id"]].begun_at
    await rig.operations.complete(complete(begun["operation_id"]))
    assert operation_records(rig)[-1] == (begun["operation_id"], "completed")
    assert rebuilt(rig).digest() == rig.store.digest()


async def test_a_replica_that_died_leaves_them_to_the_next_start(rig: Any) -> None:
    """The replica that began them is gone (its copies with it); a new one, sharing only the
    coordination store and the log, publishes them all at its start, due or not."""
    started = await rig.start()
    first = await rig.begin(started, correlation="a")
    second = await rig.begin(started, correlation="b")
    rig.rebuild()  # a new process: no copies
    assert await rig.operations.pending.publish_due() == 0  # nothing due yet
    assert await rig.operations.pending.publish_due(everything=True) == 2
    assert sorted(operation_records(rig)) == sorted(
        [(first["operation_id"], "pending"), (second["operation_id"], "pending")])
    assert rebuilt(rig).digest() == rig.store.digest()


async def test_complete_on_another_replica_reads_the_deferred_record(rig: Any) -> None:
    started = await rig.start()
    begun = await rig.begin(started)
    other = Operations(rig.core)  # another replica: its own copies (none), same Redis and view
    done = await other.complete(complete(begun["operation_id"], evidence=(EVIDENCE,)))
    assert done["evidence_durability"] == "durable"
    assert operation_records(rig) == [(begun["operation_id"], "completed")]
    final = rig.store.operations[begun["operation_id"]]
    assert final.begun_at == rig.clock.now.isoformat()
    assert await rig.operations.pending.publish_due(everything=True) == 0  # it forgot it


async def test_a_clean_stop_publishes_its_own_still_pending(rig: Any) -> None:
    started = await rig.start()
    quick = await rig.begin(started, correlation="quick")
    slow = await rig.begin(started, correlation="slow")
    await rig.operations.complete(complete(quick["operation_id"]))
    await rig.operations.pending.drain()
    assert operation_records(rig) == [(quick["operation_id"], "completed"),
                                      (slow["operation_id"], "pending")]
    assert await rig.operations.pending.publish_due(everything=True) == 0


async def test_a_failed_begin_leaves_no_deferred_record(rig: Any) -> None:
    rig.rebuild(max_operations_per_interaction=1)
    started = await rig.start()
    await rig.begin(started, correlation="a")
    with pytest.raises(ApiError) as info:
        await rig.begin(started, correlation="b")
    assert info.value.code == "operation_limit_exceeded"
    rig.rebuild()
    assert await rig.operations.pending.publish_due(everything=True) == 1  # only the first


async def test_a_retry_while_it_is_deferred_waits_for_its_receipt(rig: Any) -> None:
    started = await rig.start()
    await rig.begin(started)
    with pytest.raises(ApiError) as info:
        await rig.begin(started)
    assert info.value.code == "receipt_pending"


async def test_a_finish_past_the_bound_counts_the_deferred_ones_as_assembling(rig: Any) -> None:
    rig.rebuild(finish_wait_seconds=0)
    started = await rig.start()
    begun = await rig.begin(started)
    result = await rig.lifecycle.finish(FinishCommand(
        account="alice", conversation_id=started["conversation_id"],
        interaction_id=started["interaction_id"], outcome="completed", answer="42"))
    assert (result["evidence_status"], result["execution_status"]) == ("assembling", "partial")
    view = interaction_view(rig.store.interaction_records(started["interaction_id"]))
    assert (view["evidence_status"], view["operations_pending"]) == ("assembling", 1)
    await rig.operations.complete(complete(begun["operation_id"]))
    view = interaction_view(rig.store.interaction_records(started["interaction_id"]))
    assert (view["evidence_status"], view["operations_pending"]) == ("complete", 0)
    assert rebuilt(rig).digest() == rig.store.digest()


class _Pending:
    def __init__(self) -> None:
        self.drained = 0

    async def run(self, replayed: asyncio.Event) -> None:
        await asyncio.Event().wait()

    async def drain(self) -> None:
        self.drained += 1


async def test_a_stop_by_an_error_still_publishes_this_replicas_pending_records() -> None:
    pending = _Pending()
    with pytest.raises(RuntimeError, match="lifespan failed"):
        async with _deferring(pending, asyncio.Event()):  # type: ignore[arg-type]
            raise RuntimeError("lifespan failed")
    assert pending.drained == 1
