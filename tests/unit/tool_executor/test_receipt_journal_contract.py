"""The ReceiptJournal contract (tests/contracts/receipt_journal.py) on the memory adapter
(Redis: tests/integration/capabilities/test_receipt_journal.py)."""

from __future__ import annotations

import pytest

from tests.contracts import ManualClock, ManualTime
from tests.contracts.receipt_journal import ReceiptJournalContract
from tool_executor.adapters.memory_receipt_journal import MemoryReceiptJournal
from tool_executor.service_layer.ports import ReceiptJournal


class TestMemoryReceiptJournal(ManualTime, ReceiptJournalContract):
    @pytest.fixture
    def journal(self, clock: ManualClock) -> ReceiptJournal:
        return MemoryReceiptJournal(clock=clock)
