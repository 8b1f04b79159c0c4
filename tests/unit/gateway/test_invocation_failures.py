"""Which failed calls keep their invocation id's record (a retry must not run the tool again)."""

from __future__ import annotations

from typing import Any

import pytest

from bkn_common.errors import ApiError, ErrorCode
from gateway.service_layer.catalogue import build_registry
from gateway.service_layer.pipeline import _may_have_acted, call_tool
from gateway.settings import GatewaySettings
from tests.unit.gateway.fakes import DictIdempotency, FakeServices, context, deps

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
    assert len(fake.tool_executor.calls) == 2 and records.records == {}
