"""The ActionLedger contract (tests/contracts/action_ledger.py) on the memory adapter (Redis:
tests/integration/actions/test_action_ledger_contract.py)."""

from __future__ import annotations

import pytest

from tests.contracts import ManualClock, ManualTime
from tests.contracts.action_ledger import ActionLedgerContract, LedgerFor
from tool_executor.adapters.memory_action_ledger import MemoryActionLedger


class TestMemoryActionLedger(ManualTime, ActionLedgerContract):
    @pytest.fixture
    def ledger_for(self, clock: ManualClock) -> LedgerFor:
        return lambda lease_seconds: MemoryActionLedger(lease_seconds, clock=clock)
