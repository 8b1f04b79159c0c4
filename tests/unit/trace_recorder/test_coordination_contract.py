"""The Coordination contract (tests/contracts/coordination.py) on the memory adapter (Redis:
tests/integration/trace/recorder/test_coordination_contract.py)."""

from __future__ import annotations

import pytest

from tests.contracts import ManualClock, ManualTime
from tests.contracts.coordination import CoordinationContract, claim_op
from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.service_layer.ports import Coordination, CoordinationUnavailable


class TestMemoryCoordination(ManualTime, CoordinationContract):
    @pytest.fixture
    def port(self, clock: ManualClock) -> Coordination:
        return MemoryCoordination(clock=clock)


async def test_claim_operation_when_unavailable() -> None:
    port = MemoryCoordination()
    port.available = False
    with pytest.raises(CoordinationUnavailable):
        await claim_op(port)
