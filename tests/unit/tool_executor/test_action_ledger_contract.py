"""The ActionLedger contract (tests/contracts/action_ledger.py) on the memory adapter (Redis:
tests/integration/actions/test_action_ledger_contract.py)."""

from __future__ import annotations

import pytest

from tests.contracts import Elapse, ManualClock
from tests.contracts.action_ledger import ActionLedgerContract, LedgerFor
from tool_executor.adapters.memory_action_ledger import MemoryActionLedger


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


class TestMemoryActionLedger(ActionLedgerContract):
    @pytest.fixture
    def ledger_for(self, clock: ManualClock) -> LedgerFor:
        return lambda lease_seconds: MemoryActionLedger(lease_seconds, clock=clock)

    @pytest.fixture
    def elapse(self, clock: ManualClock) -> Elapse:
        return clock.elapse
