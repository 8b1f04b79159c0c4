"""The contract of the gateway's ``TraceCore`` port as the call path relies on it: the probe,
an interaction's start, and an operation's begin, completion and replay (the unit suite's
``OperationLog`` and ``RemoteTraceCore`` on a real trace-recorder).

Subclasses provide the fixture ``core`` (the port; every test starts its own interaction).
"""

from __future__ import annotations

from typing import Any

import pytest

from bkn_common.contracts.errors import ApiError
from gateway.domain.context import CallContext
from gateway.domain.identity import Principal
from gateway.service_layer.ports import TraceCore

RESULT: dict[str, Any] = {"rows": [{"id": 1, "名称": "发票"}], "receipt_id": "rcpt_x"}
REFUSAL: dict[str, Any] = {"error": "upstream_timeout", "status": 504, "params": {"timeout": "5"}}


def context() -> CallContext:
    return CallContext(Principal(account="alice", kind="user", via="app_key"), "en-US",
                       request_id="req-contract", transport="rest")


async def started(core: TraceCore) -> dict[str, Any]:
    return await core.start(context(), {"question": "多少张发票?", "agent_name": "contract",
                                        "conversation_mode": "new"})


def operation(turn: dict[str, Any], correlation: str = "inv-1", input_hash: str = "h1",
              tool: str = "execute_tool") -> dict[str, Any]:
    return {"conversation_id": turn["conversation_id"], "interaction_id": turn["interaction_id"],
            "tool_name": tool, "input_hash": input_hash, "correlation": correlation}


async def refused(core: TraceCore, body: dict[str, Any]) -> ApiError:
    with pytest.raises(ApiError) as refusal:
        await core.begin_operation(context(), body)
    return refusal.value


async def complete(core: TraceCore, turn: dict[str, Any], begun: dict[str, Any], status: str,
                   result: Any) -> None:
    core.complete_in_background(context(), turn["interaction_id"], {
        "operation_id": begun["operation_id"], "receipt_status": status, "result": result,
        "evidence": [], "execution_receipt_id": None})
    await core.drain(turn["interaction_id"])


class TraceCoreContract:
    async def test_an_answering_core_probes_as_its_policy(self, core: TraceCore) -> None:
        policy = await core.probe(context())
        assert policy is not None and policy["capture_enabled"] is True

    async def test_a_new_interaction(self, core: TraceCore) -> None:
        turn = await started(core)
        assert turn["new_conversation"] is True
        assert turn["conversation_id"] and turn["interaction_id"]

    async def test_an_operation_is_new_then_pending_until_it_is_completed(self, core: TraceCore) -> None:
        turn = await started(core)
        begun = await core.begin_operation(context(), operation(turn))
        assert begun["status"] == "new" and begun["operation_id"] and begun["receipt_id"]
        pending = await refused(core, operation(turn))
        assert (pending.code, pending.status) == ("receipt_pending", 409)
        assert pending.details["operation_id"] == begun["operation_id"]

    async def test_a_key_with_another_input_is_a_conflict(self, core: TraceCore) -> None:
        turn = await started(core)
        begun = await core.begin_operation(context(), operation(turn))
        conflicts = [await refused(core, operation(turn, input_hash="h2"))]  # while pending
        await complete(core, turn, begun, "completed", RESULT)
        conflicts.append(await refused(core, operation(turn, input_hash="h2")))  # once final
        for conflict in conflicts:
            assert (conflict.code, conflict.status) == ("idempotency_conflict", 409)
            assert conflict.details["operation_id"] == begun["operation_id"]

    async def test_a_completed_operation_replays_its_result(self, core: TraceCore) -> None:
        turn = await started(core)
        begun = await core.begin_operation(context(), operation(turn))
        await complete(core, turn, begun, "completed", RESULT)
        replay = await core.begin_operation(context(), operation(turn))
        assert {k: replay[k] for k in ("status", "operation_id", "receipt_id", "receipt_status",
                                       "stored_result")} == {
            "status": "replay", "operation_id": begun["operation_id"], "receipt_id": begun["receipt_id"],
            "receipt_status": "completed", "stored_result": RESULT}

    async def test_a_failed_operation_replays_as_failed_with_its_refusal(self, core: TraceCore) -> None:
        turn = await started(core)
        begun = await core.begin_operation(context(), operation(turn))
        await complete(core, turn, begun, "failed", REFUSAL)
        replay = await core.begin_operation(context(), operation(turn))
        assert (replay["status"], replay["receipt_status"], replay["stored_result"]) == (
            "replay", "failed", REFUSAL)

    async def test_an_operation_is_keyed_by_correlation_and_tool(self, core: TraceCore) -> None:
        turn = await started(core)
        first = await core.begin_operation(context(), operation(turn))
        others = [await core.begin_operation(context(), operation(turn, correlation="attempt 1 x")),
                  await core.begin_operation(context(), operation(turn, tool="query_object_instance"))]
        assert [o["status"] for o in others] == ["new", "new"]
        ids = {first["operation_id"], *(o["operation_id"] for o in others)}
        receipts = {first["receipt_id"], *(o["receipt_id"] for o in others)}
        assert len(ids) == len(receipts) == 3
