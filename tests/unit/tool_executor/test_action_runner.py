"""The action runner over the in-memory ledger: a planned call runs at most once, however
often the request is delivered, and a call found claimed without an outcome is not sent again."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bkn_common.contracts import events as ev
from tool_executor.adapters.memory_action_ledger import MemoryActionLedger
from tool_executor.service_layer.actions import ActionRunner
from tool_executor.service_layer.execution import ExecuteCommand, ExecutionOutcome


class AllowingAuthorisation:
    def require_network_permission(self, kn_id: str, caller: str, permission: str) -> None:
        return None

    def owner_ref(self, kn_id: str, owner_id: str, tool_id: str) -> ev.CapabilityRef:
        return ev.CapabilityRef(capability_type="function", capability_id=tool_id, owner_id=owner_id)

    def check_executable(self, kn_id: str, ref: ev.CapabilityRef) -> str:
        return "proxy"


@dataclass
class CountingExecutor:
    authorisation: AllowingAuthorisation = field(default_factory=AllowingAuthorisation)
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def execute(self, cmd: ExecuteCommand) -> ExecutionOutcome:
        self.calls.append(cmd.arguments)
        return ExecutionOutcome(cmd.receipt_id or "", "succeeded", 200, {"ok": cmd.arguments}, 1.0)


@dataclass
class Updates:
    events: list[ev.ActionExecutionUpdated] = field(default_factory=list)

    async def publish(self, event: ev.Event) -> None:
        assert isinstance(event, ev.ActionExecutionUpdated)
        self.events.append(event)


def request(targets: int = 2) -> ev.ActionExecutionRequested:
    return ev.ActionExecutionRequested(
        execution_id="x1", kn_id="kn", action_type_id="restart", caller="alice",
        targets=tuple(ev.ActionTarget(ot_id="host", identity={"id": i}) for i in range(targets)),
        parameters={"plan": {"toolbox_id": "box", "tool_id": "restart", "mode": "per_instance",
                             "calls": [{"targets": [i], "arguments": {"host": i}}
                                       for i in range(targets)]}},
        requested_at=datetime.now(UTC))


def runner(ledger: MemoryActionLedger) -> tuple[ActionRunner, CountingExecutor, Updates]:
    executor, updates = CountingExecutor(), Updates()
    return ActionRunner(executor, updates, ledger), executor, updates  # type: ignore[arg-type]


async def test_a_redelivered_request_runs_nothing_again() -> None:
    ledger = MemoryActionLedger()
    first, executor, updates = runner(ledger)
    assert await first.run(request(), asyncio.Event()) == "finished"
    assert executor.calls == [{"host": 0}, {"host": 1}]
    assert updates.events[-1].status == "completed" and updates.events[-1].success_count == 2
    again, other, more = runner(ledger)
    assert await again.run(request(), asyncio.Event()) == "finished"
    assert other.calls == [] and more.events == []


async def test_a_call_claimed_by_a_worker_that_died_is_reported_and_not_sent() -> None:
    ledger = MemoryActionLedger()
    assert await ledger.claim("x1", 0)  # the earlier worker died while call 0 ran
    resumed, executor, updates = runner(ledger)
    assert await resumed.run(request(), asyncio.Event()) == "finished"
    assert executor.calls == [{"host": 1}]
    final = updates.events[-1]
    assert (final.status, final.success_count, final.failed_count) == ("completed", 1, 1)
    assert [r.error for r in final.results] == ["interrupted", None]
