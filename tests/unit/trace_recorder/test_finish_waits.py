"""finish waits (bounded) for the interaction's operations wherever they began; the statuses
that follow (complete / assembling / partial / failed) and the view once late records land."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from trace_recorder.domain.rules import operation_id_for, operation_key, receipt_id_for
from trace_recorder.service_layer.interactions import FinishCommand
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.operations import CompleteCommand
from trace_recorder.service_layer.views import conversation_view, interaction_view


def finishing(rig: Any, started: dict[str, Any]) -> asyncio.Task[dict[str, Any]]:
    return asyncio.ensure_future(rig.lifecycle.finish(FinishCommand(
        account="alice", conversation_id=started["conversation_id"],
        interaction_id=started["interaction_id"], outcome="completed", answer="42")))


def watch_polls(rig: Any) -> asyncio.Event:
    """Set once finish has looked at the interaction's claimed-operation count (it is waiting)."""
    polled = asyncio.Event()
    read = rig.coordination.get

    async def get(key: str) -> str | None:
        if key.startswith("opcount:"):
            polled.set()
        value: str | None = await read(key)
        return value

    rig.coordination.get = get
    return polled


async def test_finish_waits_for_a_completion_still_under_way(rig: Any) -> None:
    rig.rebuild(finish_wait_seconds=60)
    started = await rig.start()
    begun = await rig.begin(started)
    polled = watch_polls(rig)
    task = finishing(rig, started)
    await asyncio.wait_for(polled.wait(), 30)
    assert not task.done()
    await rig.operations.complete(CompleteCommand("alice", begun["operation_id"], "completed"))
    result = await task
    assert (result["evidence_status"], result["execution_status"]) == ("complete", "succeeded")


async def test_finish_waits_for_an_operation_begun_on_another_replica(rig: Any) -> None:
    """The claim counter (shared) says one operation began; this replica's store has not seen
    it yet. finish waits until its pending and then its final record arrive from the log."""
    rig.rebuild(finish_wait_seconds=60)
    started = await rig.start()
    await rig.coordination.incr(Keys.op_count(started["interaction_id"]), 3600)
    polled = watch_polls(rig)
    task = finishing(rig, started)
    await asyncio.wait_for(polled.wait(), 30)
    key = operation_key(started["interaction_id"], "elsewhere", "search_capabilities")
    record = {"operation_id": operation_id_for(key), "operation_key": key,
              "conversation_id": started["conversation_id"],
              "interaction_id": started["interaction_id"], "tool_name": "search_capabilities",
              "input_hash": "h", "receipt_id": receipt_id_for(key),
              "recorded_at": datetime(2026, 1, 1, tzinfo=UTC)}
    rig.store.apply_events([ev.OperationRecorded(
        **record, receipt_status="pending", evidence_durability="pending")])
    assert not task.done()
    rig.store.apply_events([ev.OperationRecorded(
        **record, receipt_status="completed", evidence_durability="durable")])
    result = await task
    assert (result["evidence_status"], result["operations"]) == ("complete", 1)


async def test_past_the_bound_the_turn_is_assembling_and_the_view_follows_late_records(rig: Any) -> None:
    rig.rebuild(finish_wait_seconds=0)
    started = await rig.start()
    begun = await rig.begin(started)
    result = await finishing(rig, started)
    assert (result["evidence_status"], result["execution_status"]) == ("assembling", "partial")
    view = interaction_view(rig.store.interaction_records(started["interaction_id"]))
    assert (view["evidence_status"], view["operations_pending"]) == ("assembling", 1)

    await rig.operations.complete(CompleteCommand("alice", begun["operation_id"], "completed"))
    view = interaction_view(rig.store.interaction_records(started["interaction_id"]))
    assert (view["evidence_status"], view["evidence_status_at_finish"]) == ("complete", "assembling")
    assert view["operations_pending"] == 0
    [summary] = conversation_view(rig.store, started["conversation_id"])["interactions"]
    assert summary["evidence_status"] == "complete"


@pytest.mark.parametrize(("landed", "status"), [(0, "failed"), (1, "partial")])
async def test_an_abandoned_operation_is_not_waited_for_and_counts_as_lost(
    rig: Any, landed: int, status: str
) -> None:
    rig.rebuild(finish_wait_seconds=60)
    started = await rig.start()
    await rig.begin(started, correlation="died")
    rig.clock.advance(rig.policy.pending_timeout_seconds + 1)
    for n in range(landed):
        done = await rig.begin(started, correlation=f"fine-{n}")
        await rig.operations.complete(CompleteCommand("alice", done["operation_id"], "completed"))
    result = await finishing(rig, started)  # returns without waiting: nobody will complete it
    assert (result["evidence_status"], result["operations"]) == (status, 1 + landed)
