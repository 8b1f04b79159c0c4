"""Unit rig of the trace core: the real store and handlers over in-memory ports."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.adapters.memory_event_sink import MemoryEventSink
from trace_recorder.service_layer.interactions import Lifecycle, StartCommand
from trace_recorder.service_layer.operations import BeginCommand, Operations
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.store import TraceStore

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


class ManualClock:
    def __init__(self) -> None:
        self.now = EPOCH

    def __call__(self) -> datetime:
        return self.now

    def seconds(self) -> float:
        return (self.now - EPOCH).total_seconds()

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Rig:
    clock: ManualClock = field(default_factory=ManualClock)
    sink: MemoryEventSink = field(default_factory=MemoryEventSink)
    store: TraceStore = field(default_factory=TraceStore)
    # pending records at once (the tests of a deferred one, the default, say so: test_deferred)
    policy: Policy = field(default_factory=lambda: Policy(pending_record_delay_seconds=0))

    def __post_init__(self) -> None:
        self.coordination = MemoryCoordination(clock=self.clock.seconds)
        self.rebuild()

    def rebuild(self, **policy: Any) -> None:
        """(Re)wire the handlers, optionally with a different policy; state is kept."""
        self.policy = self.policy.model_copy(update=policy)
        self.core = Core(self.store, self.sink, self.coordination, self.policy, clock=self.clock)
        self.lifecycle = Lifecycle(self.core)
        self.operations = Operations(self.core)

    async def start(self, account: str = "alice", **kw: Any) -> dict[str, Any]:
        args: dict[str, Any] = {"question": "How many orders?", "agent_name": "agent",
                                "conversation_mode": "new", **kw}
        return await self.lifecycle.start(StartCommand(account=account, **args))

    async def begin(
        self, started: dict[str, Any], correlation: str = "call-1", account: str = "alice",
        tool_name: str = "query_object_instance", input_hash: str = "h1",
    ) -> dict[str, Any]:
        return await self.operations.begin(BeginCommand(
            account=account, conversation_id=started["conversation_id"],
            interaction_id=started["interaction_id"], tool_name=tool_name,
            input_hash=input_hash, correlation=correlation,
        ))


@pytest.fixture
def rig() -> Rig:
    return Rig()
