"""The receipt journal in process memory: the same port as Redis, for tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from bkn_common.contracts import events as ev


class MemoryReceiptJournal:
    """The :class:`~tool_executor.service_layer.ports.ReceiptJournal` port in dicts.

    ``entries`` and ``deadlines`` are the open entries; ``clock`` (seconds) decides when a
    recovery lease lapses, so tests need not sleep.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.entries: dict[str, ev.ExecutionReceiptRecorded] = {}
        self.deadlines: dict[str, float] = {}
        self._leases: dict[str, float] = {}

    async def open(self, receipt: ev.ExecutionReceiptRecorded, deadline: float) -> None:
        self.entries[receipt.receipt_id] = receipt
        self.deadlines[receipt.receipt_id] = deadline

    async def settle(self, receipt: ev.ExecutionReceiptRecorded) -> None:
        if receipt.receipt_id in self.entries:
            self.entries[receipt.receipt_id] = receipt

    async def close(self, receipt_id: str) -> None:
        self.entries.pop(receipt_id, None)
        self.deadlines.pop(receipt_id, None)

    async def open_count(self) -> int:
        return len(self.deadlines)

    async def overdue(self, now: float, limit: int) -> list[str]:
        due = sorted((d, r) for r, d in self.deadlines.items() if d <= now)
        return [r for _, r in due[:limit]]

    async def claim(self, receipt_id: str, seconds: float) -> bool:
        if self._leases.get(receipt_id, float("-inf")) > self._clock():
            return False
        self._leases[receipt_id] = self._clock() + seconds
        return True

    async def read(self, receipt_id: str) -> ev.ExecutionReceiptRecorded | None:
        return self.entries.get(receipt_id)
