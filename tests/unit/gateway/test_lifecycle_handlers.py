"""The lifecycle handlers on a fake trace core: what they send, the public vocabulary of the
answers, and an outage as a retryable 503 (ids are never made up)."""

from __future__ import annotations

import pytest

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.inputs.lifecycle import FinishInteractionInput, StartInteractionInput
from gateway.service_layer import lifecycle
from tests.unit.gateway.fakes import FakeTraceCore, context, deps

START = StartInteractionInput(question="库存多少？", agent_name="agent", conversation_mode="new")


async def test_start_sends_the_question_and_the_call_hints() -> None:
    trace = FakeTraceCore()
    ctx = context()
    ctx.invocation_id, ctx.host_conversation_key = "inv-1", "host-1"
    started = await lifecycle.start_interaction(deps(trace=trace), ctx, START)
    assert started["execution_status"] == "active" and started["interaction_id"] == "int_1"
    assert trace.started == [{**START.model_dump(), "invocation_id": "inv-1", "host_conversation_key": "host-1"}]


async def test_finish_counts_each_distinct_reported_gap_once_and_answers_in_public_words() -> None:
    trace = FakeTraceCore()
    args = FinishInteractionInput(interaction_id="int_1", outcome="cancelled", reason="user left",
                                  partial_reasons=["m1", "m2", "m1"])
    finished = await lifecycle.finish_interaction(deps(trace=trace), context(), args)
    [(body, gaps)] = trace.finished
    assert gaps == 2 and "partial_reasons" not in body and body["outcome"] == "cancelled"
    assert (finished["execution_status"], finished["operations_status"], finished["evidence_status"]) == (
        "canceled", "succeeded", "not_applicable")


@pytest.mark.parametrize("call", ["start", "finish"])
async def test_an_unreachable_trace_core_is_a_retryable_503(call: str) -> None:
    trace = FakeTraceCore()
    trace.failure = ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": "trace-recorder"})
    with pytest.raises(ApiError) as refused:
        if call == "start":
            await lifecycle.start_interaction(deps(trace=trace), context(), START)
        else:
            await lifecycle.finish_interaction(deps(trace=trace), context(), FinishInteractionInput(
                interaction_id="int_1", outcome="completed", answer="42"))
    assert (refused.value.code, refused.value.status, refused.value.details) == (
        "trace_core_unavailable", 503, {"retry": True})


async def test_other_refusals_of_the_trace_core_pass_through() -> None:
    trace = FakeTraceCore()
    trace.failure = ApiError("interaction_not_found", 404)
    with pytest.raises(ApiError) as refused:
        await lifecycle.finish_interaction(deps(trace=trace), context(), FinishInteractionInput(
            interaction_id="int_9", outcome="completed", answer="42"))
    assert refused.value is trace.failure
