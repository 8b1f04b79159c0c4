"""Publishing the receipts an executor journaled but never saw acknowledged by Kafka.

Every tool-executor replica sweeps the journal now and then. An entry past its deadline
(the tool's own timeout plus a grace period) was left by an executor that stopped mid-call,
or whose final receipt Kafka refused; one replica leases it, publishes what the entry holds
(the final receipt if it was settled, otherwise the provisional one with
``outcome_known=False``) and closes it. Publishing twice is harmless: receipts are keyed by
receipt_id and trace-recorder keeps a known outcome over an unknown one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from bkn_common.framework.background import running
from tool_executor.service_layer.ports import ReceiptJournal, ReceiptSink

log = logging.getLogger(__name__)


class ReceiptRecovery:
    def __init__(
        self,
        journal: ReceiptJournal,
        receipts: ReceiptSink,
        *,
        batch: int = 100,
        lease_seconds: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._journal = journal
        self._receipts = receipts
        self._batch = batch
        self._lease = lease_seconds
        self._clock = clock

    async def sweep(self) -> int:
        """Publish and close the overdue entries this replica could lease; how many."""
        recovered = 0
        for receipt_id in await self._journal.overdue(self._clock(), self._batch):
            if not await self._journal.claim(receipt_id, self._lease):
                continue  # another replica has it
            receipt = await self._journal.read(receipt_id)
            if receipt is not None:
                await self._receipts.publish(receipt)
                log.warning("recovered receipt %s (outcome %s)", receipt_id,
                            receipt.outcome if receipt.outcome_known else "unknown")
            await self._journal.close(receipt_id)
            recovered += 1
        return recovered

    @asynccontextmanager
    async def running(self, every_seconds: float) -> AsyncIterator[None]:
        """Lifespan resource: sweep every ``every_seconds`` while the service runs."""

        async def loop() -> None:
            while True:
                try:
                    await self.sweep()
                except Exception as exc:  # Redis or Kafka away: the next sweep tries again
                    log.warning("receipt recovery sweep failed: %s", exc)
                await asyncio.sleep(every_seconds)

        async with running(loop(), "receipt-recovery"):
            yield
