"""Two trace-recorder replicas on the real Kafka and Redis: a turn finished on one waits for an
operation begun and still completing on the other."""

from __future__ import annotations

import asyncio

import pytest

pytestmark = pytest.mark.integration


def ids_of(started: dict) -> dict:
    return {k: started[k] for k in ("conversation_id", "interaction_id")}


async def test_finish_on_one_replica_waits_for_a_completion_on_the_other(env, wait_for) -> None:
    async with env.running() as first, env.running(finish_wait_seconds=60) as second:
        ids = ids_of(await first.start())
        begun = await first.post("operations/begin", {
            **ids, "tool_name": "execute_tool", "input_hash": "h", "correlation": "call-1"})
        # the second replica knows the operation only from the log: begun, not completed
        await wait_for(lambda: [op.receipt_status for op in second.store.operations_of(
            ids["interaction_id"])] == ["pending"])
        finishing = asyncio.ensure_future(second.post("interactions/finish", {
            **ids, "outcome": "completed", "answer": "72 CNY"}))
        done, _ = await asyncio.wait({finishing}, timeout=0.5)
        assert not done  # waiting for the operation, not finishing without it
        await first.post("operations/complete", {
            "operation_id": begun["operation_id"], "receipt_status": "completed",
            "evidence": [{"evidence_type": "execution", "attributes": {"receipt": "r"}}]})
        finished = await finishing
        assert (finished["evidence_status"], finished["execution_status"]) == ("complete", "succeeded")
        assert finished["operations"] == 1
