"""The lifecycle against the real Kafka and Redis: a full turn, capture policy, conflicts,
pending receipts, lease expiry and the operation limit."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import pytest

from bkn_common.contracts import events as ev

pytestmark = pytest.mark.integration


def receipt(receipt_id: str, operation_id: str, interaction_id: str, trace_id: str):
    return ev.ExecutionReceiptRecorded(
        receipt_id=receipt_id, operation_id=operation_id, interaction_id=interaction_id,
        kn_id="kn_demo", owner_id="box", tool_id="lookup", capability_type="function",
        caller="alice", proxy_id="px", arguments_hash="ah", outcome="succeeded",
        latency_ms=12.5, executed_at=datetime.now(UTC), trace_id=trace_id,
    )


def span(trace_id: str, span_id: str, start: int, **attributes):
    return ev.SpanExported(
        trace_id=trace_id, span_id=span_id, name=f"span {span_id}", service_name="tool-executor",
        kind="internal", start_time_unix_nano=start, end_time_unix_nano=start + 5_000_000,
        status="ok", attributes=attributes,
    )


def begin_body(ids, correlation: str = "call-1", input_hash: str = "h1") -> dict:
    return {**ids, "tool_name": "query_object_instance", "input_hash": input_hash,
            "correlation": correlation}


def ids_of(started: dict) -> dict:
    return {k: started[k] for k in ("conversation_id", "interaction_id")}


RETRIEVAL = {"evidence_type": "retrieval",
             "attributes": {"query_hash": "qh", "candidate_count": 2, "truncated": False},
             "source_refs": ["object_instance:kn_demo:order:1", "object_instance:kn_demo:order:2"]}


async def test_probe_and_readiness(env) -> None:
    async with env.running() as app:
        assert await app.get("probe") == {"available": True, "capture_enabled": True}
        assert (await app.client.get("/readyz")).json()["status"] == "ready"


async def test_a_full_turn_is_readable_afterwards(env) -> None:
    async with env.running() as app:
        ids = ids_of(await app.start())
        begun = await app.post("operations/begin", begin_body(ids))
        assert begun["status"] == "new"
        trace_id = uuid.uuid4().hex
        await env.publish([
            receipt("rcpt_full_1", begun["operation_id"], ids["interaction_id"], trace_id),
            span(trace_id, "b", 200), span(trace_id, "a", 100),
            span(uuid.uuid4().hex, "c", 150, **{"bkn.operation_id": begun["operation_id"]}),
        ])
        done = await app.post("operations/complete", {
            "operation_id": begun["operation_id"], "receipt_status": "completed",
            "result": {"rows": [{"id": 1}]}, "evidence": [RETRIEVAL],
            "execution_receipt_id": "rcpt_full_1"})
        assert done["evidence_durability"] == "durable"
        finished = await app.post("interactions/finish", {**ids, "outcome": "completed",
                                                          "answer": "Two orders."})
        assert finished == {**ids, "outcome": "completed", "execution_status": "succeeded",
                            "evidence_status": "complete", "operations": 1}
        await app.consumed(await env.end_offsets())

        view = await app.get(f"interactions/{ids['interaction_id']}")
        assert (view["status"], view["answer"]) == ("finished", "Two orders.")
        [op] = view["operations"]
        assert (op["receipt_status"], op["evidence_durability"]) == ("completed", "durable")
        assert sorted(e["evidence_type"] for e in op["evidence"]) == ["execution", "retrieval"]
        assert [r["receipt_id"] for r in op["execution_receipts"]] == ["rcpt_full_1"]
        assert [s["span_id"] for s in view["spans"]] == ["a", "c", "b"]
        conversation = await app.get(f"conversations/{ids['conversation_id']}")
        assert [i["interaction_id"] for i in conversation["interactions"]] == [
            ids["interaction_id"]]

        again = await app.start(conversation_mode="continue",
                                conversation_id=ids["conversation_id"])
        assert again["new_conversation"] is False  # finishing never closes the conversation


async def test_capture_disabled_issues_real_ids_and_records_no_operations(env) -> None:
    async with env.running(capture_enabled=False) as app:
        assert (await app.get("probe"))["capture_enabled"] is False
        started = await app.start()
        assert started["capture_enabled"] is False
        ids = ids_of(started)
        assert await app.post("operations/begin", begin_body(ids)) == {"status": "not_captured"}
        finished = await app.post("interactions/finish", {**ids, "outcome": "failed",
                                                          "reason": "tool error"})
        assert (finished["evidence_status"], finished["operations"]) == ("not_captured", 0)
        view = await app.get(f"interactions/{ids['interaction_id']}")
        assert view["operations"] == [] and view["capture_enabled"] is False


async def test_idempotent_start_and_both_conflicts(env) -> None:
    async with env.running() as app:
        first = await app.start(invocation_id="inv-conflicts")
        assert (await app.start(invocation_id="inv-conflicts")) == {**first, "replayed": True}
        await app.refused("interactions/start", {
            "question": "Another question", "agent_name": "agent", "conversation_mode": "new",
            "invocation_id": "inv-conflicts"}, "idempotency_conflict", 409)
        ids = ids_of(first)
        await app.post("operations/begin", begin_body(ids))
        await app.refused("operations/begin", begin_body(ids, input_hash="h2"),
                          "idempotency_conflict", 409)


async def test_receipt_pending_then_replay(env) -> None:
    async with env.running() as app:
        ids = ids_of(await app.start())
        begun = await app.post("operations/begin", begin_body(ids))
        pending = await app.refused("operations/begin", begin_body(ids), "receipt_pending", 409)
        assert pending["details"]["operation_id"] == begun["operation_id"]
        await app.post("operations/complete", {"operation_id": begun["operation_id"],
                                               "receipt_status": "failed",
                                               "result": {"error": "upstream 502"}})
        replay = await app.post("operations/begin", begin_body(ids))
        assert (replay["status"], replay["receipt_status"], replay["stored_result"]) == (
            "replay", "failed", {"error": "upstream 502"})


async def test_ids_must_be_issued_by_start_for_the_account(env) -> None:
    async with env.running() as app:
        ids = ids_of(await app.start())
        await app.refused("operations/begin", begin_body(ids), "interaction_not_found", 404,
                          account="mallory")
        await app.refused("operations/begin",
                          begin_body({**ids, "interaction_id": "int_" + uuid.uuid4().hex}),
                          "interaction_not_found", 404)
        await app.refused("interactions/start", {
            "question": "q", "agent_name": "a", "conversation_mode": "continue",
            "conversation_id": "conv_" + uuid.uuid4().hex}, "conversation_not_found", 404)


async def test_an_expired_lease_is_abandoned(env) -> None:
    async with env.running(lease_seconds=1) as app:
        first = await app.start()
        cont = {"question": "And then?", "agent_name": "agent", "conversation_mode": "continue",
                "conversation_id": first["conversation_id"]}
        refusal = await app.refused("interactions/start", cont, "interaction_active", 409)
        assert refusal["details"]["active_interaction_id"] == first["interaction_id"]
        await asyncio.sleep(1.3)
        second = await app.post("interactions/start", cont)
        assert second["conversation_id"] == first["conversation_id"]
        old = await app.get(f"interactions/{first['interaction_id']}")
        assert (old["status"], old["outcome"]) == ("abandoned", "abandoned")
        await app.refused("operations/begin", begin_body(ids_of(first)),
                          "interaction_not_active", 409)


async def test_the_129th_operation_is_refused(env) -> None:
    async with env.running(finish_wait_seconds=0) as app:  # nobody completes the 128
        ids = ids_of(await app.start())
        for n in range(128):
            assert (await app.post("operations/begin", begin_body(ids, f"c{n}")))["status"] == "new"
        refusal = await app.refused("operations/begin", begin_body(ids, "c128"),
                                    "operation_limit_exceeded", 409)
        assert "128" in refusal["message"]
        finished = await app.post("interactions/finish", {**ids, "outcome": "handed_off",
                                                          "reason": "too many calls"})
        assert (finished["operations"], finished["execution_status"]) == (128, "partial")
        assert finished["evidence_status"] == "assembling"
