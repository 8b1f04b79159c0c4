"""Kill and restart mid-stream, then rebuild from offset zero: every operation, receipt and
piece of evidence is present exactly once, and the rebuilt store equals the live one."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event
from bkn_common.contracts.topics import TRACE
from bkn_common.framework.digest import state_digest

pytestmark = pytest.mark.integration
N = 30


def receipt(n: int, operation_id: str, interaction_id: str) -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id=f"rcpt_exec_{n}", operation_id=operation_id, interaction_id=interaction_id,
        kn_id="kn_demo", owner_id="box", tool_id="lookup", capability_type="function",
        caller="alice", proxy_id="px", arguments_hash=f"ah{n}", outcome="succeeded",
        latency_ms=3.0, executed_at=datetime.now(UTC), trace_id=f"{n:032x}",
    )


async def retried(app, path: str, body: dict) -> Any:
    """Call like the gateway after a crash: wait out the dead instance's pending operation
    (receipt_pending until the takeover) and its orphaned locks (503 until they expire)."""
    deadline = time.monotonic() + 40
    while True:
        response = await app.call(path, body)
        code = response.json().get("code") if response.status_code >= 400 else None
        if code in ("receipt_pending", "trace_core_unavailable") and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            continue
        assert response.status_code == 200, response.text
        return response


async def one_operation(env, app, ids: dict, n: int) -> None:
    """What the gateway does for one managed call, retrying like it would after a crash."""
    body = {**ids, "tool_name": "query_object_instance", "input_hash": f"h{n}",
            "correlation": f"call-{n}"}
    response = await retried(app, "operations/begin", body)
    begun = response.json()
    if begun["status"] == "replay":
        return
    await env.publish([receipt(n, begun["operation_id"], ids["interaction_id"])])
    evidence = [{"evidence_type": "retrieval", "attributes": {"query_hash": f"q{n}-{k}"},
                 "source_refs": [f"object_instance:kn_demo:order:{n}-{k}"]} for k in (1, 2)]
    done = await retried(app, "operations/complete", {
        "operation_id": begun["operation_id"], "receipt_status": "completed",
        "result": {"n": n}, "evidence": evidence, "execution_receipt_id": f"rcpt_exec_{n}"})
    assert done.json()["evidence_durability"] == "durable"


async def trace_log(env) -> list[ev.Event]:
    consumer = AIOKafkaConsumer(TRACE.full_name(env.topic_prefix),
                                bootstrap_servers=env.settings().kafka_bootstrap_servers,
                                auto_offset_reset="earliest", enable_auto_commit=False)
    await consumer.start()
    events = []
    try:
        while True:
            batch = await consumer.getmany(timeout_ms=1000)
            if not batch:
                return events
            events += [decode_event(r.value).event for rs in batch.values() for r in rs]
    finally:
        await consumer.stop()


async def test_kill_and_restart_mid_stream_then_rebuild(env) -> None:
    done: list[int] = []
    twelve_done = asyncio.Event()

    async def work(app, ids, first: int) -> None:
        for n in range(first, N):
            await one_operation(env, app, ids, n)
            done.append(n)
            if len(done) == 12:
                twelve_done.set()

    async with env.running() as first_app:
        ids = {k: v for k, v in (await first_app.start()).items()
               if k in ("conversation_id", "interaction_id")}
        worker = asyncio.create_task(work(first_app, ids, 0))
        waiter = asyncio.create_task(twelve_done.wait())
        await asyncio.wait({worker, waiter}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if worker.done():
            worker.result()  # it failed before the kill: surface why
        await asyncio.sleep(random.uniform(0, 0.03))
        worker.cancel()  # the process dies mid-call ...
        await asyncio.gather(worker, return_exceptions=True)
    killed_after = len(done)  # ... and its projection, producer and Redis client with it

    async with env.running(pending_timeout_seconds=1) as app:
        await work(app, ids, killed_after)  # the gateway retries the interrupted call
        finished = await app.post("interactions/finish", {**ids, "outcome": "completed",
                                                          "answer": "done"})
        assert finished == {**ids, "outcome": "completed", "execution_status": "succeeded",
                            "evidence_status": "complete", "operations": N}
        await app.consumed(await env.end_offsets())

        store = app.store
        ops = store.operations_of(ids["interaction_id"])
        assert len(ops) == N and all(op.receipt_status == "completed" for op in ops)
        for op in ops:
            kinds = sorted(e.evidence_type for e in store.evidence_of(op.operation_id))
            assert kinds == ["execution", "retrieval", "retrieval"], op.operation_id
            assert [r.receipt_id for r in store.receipts_of(op.operation_id)] == [
                f"rcpt_exec_{op.result['n']}"]
        evidence = [e for e in store.snapshot()["evidence"].values()
                    if e["interaction_id"] == ids["interaction_id"]]
        assert len(evidence) == 3 * N
        assert len({e["evidence_id"] for e in evidence}) == 3 * N

        # evidence travels on the operations' final records (own records before issue 16)
        logged = [item.evidence_id for e in await trace_log(env)
                  if isinstance(e, ev.OperationRecorded) and e.interaction_id == ids["interaction_id"]
                  for item in e.evidence]
        assert len(set(logged)) == 2 * N  # retries never mint new ids

        live = await app.get("state/digest")
        rebuilt = await env.rebuild()
        assert state_digest(rebuilt.snapshot()) == live


async def test_a_rebuilt_store_has_the_live_digest(env) -> None:
    async with env.running() as app:
        for k in range(3):
            started = await app.start(host_conversation_key=f"host-{k % 2}", invocation_id=f"i{k}")
            ids = {key: started[key] for key in ("conversation_id", "interaction_id")}
            await one_operation(env, app, ids, 100 + k)
            await app.post("interactions/finish", {**ids, "outcome": "cancelled",
                                                   "reason": "user left", "unrecorded_calls": k})
        await app.consumed(await env.end_offsets())
        live = await app.get("state/digest")
        assert live["sha256"] == app.store.digest()
        assert live["sections"]["interactions"]["count"] >= 3
    rebuilt = await env.rebuild()
    assert state_digest(rebuilt.snapshot()) == live
