"""Which failed calls keep their invocation id's record (a retry must not run the tool again)."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.adapters.idempotency import RedisIdempotency
from gateway.domain.context import CallContext, correlation, validate_invocation_id
from gateway.service_layer.catalog import build_registry
from gateway.service_layer.pipeline import _may_have_acted, call_tool
from gateway.settings import GatewaySettings
from tests.unit.gateway.fakes import DictIdempotency, FakeServices, OperationLog, context, deps

REGISTRY = build_registry(GatewaySettings())


def unavailable(dependency: str, reached: bool) -> ApiError:
    return ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503,
                    details={"dependency": dependency, "error": "X", "reached": reached})


@pytest.mark.parametrize(
    ("tool", "error", "acted"),
    [
        ("execute_tool", unavailable("tool-executor", reached=True), True),  # crashed mid-call
        ("execute_tool", unavailable("tool-executor", reached=False), False),  # refused connect
        ("execute_tool", unavailable("trace-recorder", reached=True), False),  # before dispatch
        ("search_capabilities", unavailable("tool-executor", reached=True), False),
        ("execute_tool", ApiError("upstream_timeout", 504), True),
    ],
)
def test_may_have_acted(tool: str, error: ApiError, acted: bool) -> None:
    definition = REGISTRY.get(tool)
    assert definition is not None
    assert _may_have_acted(definition, error) is acted


EXECUTE = "/internal/v1/execute"
FX = {"kn_id": "kn", "toolbox_id": "box", "tool_id": "t1", "arguments": {"a": 1}}


def failing(error: ApiError) -> Any:
    def answer(body: Any) -> Any:
        raise error
    return answer


async def execute_twice(error: ApiError) -> tuple[FakeServices, DictIdempotency, ApiError]:
    """The same invocation id twice; the first run fails with ``error``: the second's refusal."""
    fake, records = FakeServices(), DictIdempotency()
    fake.grant("execute")
    fake.tool_executor.on("POST", EXECUTE, failing(error))
    wired = deps(fake, idempotency=records)
    refusals = []
    for _ in range(2):
        ctx = context()
        ctx.invocation_id = "inv-1"
        with pytest.raises(ApiError) as refused:
            await call_tool(wired, ctx, "execute_tool", dict(FX))
        refusals.append(refused.value)
    assert refusals[0].code == error.code
    return fake, records, refusals[1]


async def test_a_retry_after_a_failure_that_may_have_acted_gets_the_same_refusal_and_runs_nothing() -> None:
    fake, records, again = await execute_twice(ApiError("upstream_timeout", 504, params={"timeout": 5}))
    assert (again.code, again.status, again.params) == ("upstream_timeout", 504, {"timeout": "5"})
    assert isinstance(again.details, dict) and again.details["replayed"] is True
    assert len(fake.tool_executor.calls) == 1  # the tool ran once
    [record] = records.records.values()
    assert (record.state, record.result) == ("failed", None)  # a failure, never a stored 200


async def test_a_retry_after_a_refusal_before_anything_ran_runs_the_call() -> None:
    fake, records, again = await execute_twice(unavailable("tool-executor", reached=False))
    assert again.code == ErrorCode.DEPENDENCY_UNAVAILABLE and not again.details.get("replayed")
    assert len(fake.tool_executor.calls) == 2
    [record] = records.records.values()
    assert (record.state, record.attempt) == ("retryable", 1)


async def test_a_managed_retry_after_a_refusal_before_anything_ran_is_a_new_operation_and_runs() -> None:
    """The refused first try is a final, failed operation: a retry with the invocation id that
    replayed it answered 200 with the refusal as its body, a success no receipt backs."""
    fake, trace = FakeServices(), OperationLog()
    fake.grant("execute")
    fake.tool_executor.on("POST", EXECUTE, failing(unavailable("tool-executor", reached=False)))
    wired = deps(fake, idempotency=DictIdempotency(), trace=trace)

    def managed() -> CallContext:
        ctx = context()
        ctx.invocation_id = "inv-1"
        return ctx
    payload = {**FX, "bkn_context": {"conversation_id": "conv", "interaction_id": "int"}}
    with pytest.raises(ApiError):
        await call_tool(wired, managed(), "execute_tool", dict(payload))
    fake.tool_executor.on("POST", EXECUTE, {"outcome": "succeeded", "body": {"ok": True}, "receipt_id": "x"})
    outcome = await call_tool(wired, managed(), "execute_tool", dict(payload))
    assert outcome.data["body"] == {"ok": True} and len(fake.tool_executor.calls) == 2
    assert outcome.receipt is not None and outcome.receipt["operation_id"] == "op_1"
    assert trace.correlations[0] == "inv-1" and trace.correlations[1].startswith("attempt 1 ")


async def test_a_replayed_failed_operation_is_its_refusal_again_never_a_200() -> None:
    """E.g. Redis lost the invocation record: trace-recorder still has the failed operation."""
    fake, trace = FakeServices(), OperationLog()
    fake.grant("execute")
    fake.tool_executor.on("POST", EXECUTE, failing(ApiError("upstream_timeout", 504, params={"timeout": 5})))
    payload = {**FX, "bkn_context": {"conversation_id": "conv", "interaction_id": "int"}}
    refusals = []
    for _ in range(2):  # each with fresh invocation records: the first call's are lost
        ctx = context()
        ctx.invocation_id = "inv-1"
        with pytest.raises(ApiError) as refused:
            await call_tool(deps(fake, idempotency=DictIdempotency(), trace=trace), ctx, "execute_tool",
                            dict(payload))
        refusals.append(refused.value)
    again = refusals[1]
    assert (again.code, again.status, again.params) == ("upstream_timeout", 504, {"timeout": "5"})
    assert again.details == {"operation_id": "op_0", "receipt_id": "rcpt_0", "replayed": True}
    assert len(fake.tool_executor.calls) == 1


def test_the_correlation_of_a_retry_after_a_refusal_is_no_invocation_id() -> None:
    ctx = context()
    assert correlation(ctx) == "req-1"
    ctx.invocation_id = "inv-1"
    assert correlation(ctx) == "inv-1"
    ctx.invocation_attempt = 2
    assert correlation(ctx).startswith("attempt 2 ") and len(correlation(ctx)) <= 256
    with pytest.raises(ApiError):
        validate_invocation_id(correlation(ctx))  # no caller's id can take an attempt's name


async def test_without_redis_a_claim_is_a_503_before_anything_ran_and_a_late_record_is_not_an_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redis = Redis(host="127.0.0.1", port=port, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    records = RedisIdempotency(redis, "t:", ttl_seconds=60)
    with pytest.raises(ApiError) as refused:
        await records.claim("alice", "execute_tool", "inv-1", "h")
    assert (refused.value.code, refused.value.status) == (ErrorCode.DEPENDENCY_UNAVAILABLE, 503)
    assert not _may_have_acted(REGISTRY.get("execute_tool"), refused.value)  # type: ignore[arg-type]
    await records.complete("alice", "execute_tool", "inv-1", "h", {"data": {}})  # logged, not raised
    await records.release("alice", "execute_tool", "inv-1")
    await redis.aclose()
