"""Publishing an execution's final receipt and closing its journal entry, so that recovery
(receipt_recovery.py) publishes the receipt again only when this executor could not.

Two windows made a receipt land twice on Kafka (``make faults``): recovery published the
provisional receipt of an entry whose final receipt this executor was still publishing (the
broker away longer than the entry's grace), and an entry stayed open after its receipt was
on Kafka because closing it failed once (a Redis connection the restarted server had closed).
So the executor leases its entry (the lease recovery takes, ``PUBLISH_LEASE_SECONDS``, longer
than a producer waits for an acknowledgement) before it publishes, and retries a failed close
while that lease holds (the lease's Redis round trip runs alongside the produce request,
not before it). Left: an executor that stops between the broker's acknowledgement
and the close; recovery publishes that receipt once more (trace-recorder keeps the known
outcome). Without Redis the lease is skipped: the entry is then unlocked, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from bkn_common.contracts import events as ev
from bkn_common.framework.background import BackgroundTasks
from tool_executor.service_layer.ports import ReceiptJournal, ReceiptSink

log = logging.getLogger(__name__)

PUBLISH_LEASE_SECONDS = 60.0  # aiokafka gives up on an unacknowledged send after 40 s
CLOSE_RETRY_SECONDS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)  # 31.6 s in all, inside the lease


class ReceiptPublication:
    def __init__(self, journal: ReceiptJournal, receipts: ReceiptSink,
                 close_retry_seconds: tuple[float, ...] = CLOSE_RETRY_SECONDS) -> None:
        self._journal = journal
        self._receipts = receipts
        self._retries = close_retry_seconds
        self._closing = BackgroundTasks()

    async def record(self, receipt: ev.ExecutionReceiptRecorded) -> None:
        """Publish the final receipt (acks=all) under the entry's lease; then close the entry
        off the path. If Kafka refuses it, the entry keeps the final receipt for recovery.

        The lease is taken while the receipt is being sent, not before it (the caller no
        longer waits for a Redis round trip ahead of Kafka's): recovery only takes an entry
        past its deadline, and whether it got there first depends on which lease Redis set
        first, not on when the produce request left. Both have settled before the entry is
        closed."""
        _, published = await asyncio.gather(
            self._journal.claim(receipt.receipt_id, PUBLISH_LEASE_SECONDS),
            self._receipts.publish(receipt),
            return_exceptions=True,  # a failed claim (Redis away): published anyway, unleased
        )
        if isinstance(published, BaseException):
            with contextlib.suppress(Exception):
                await self._journal.settle(receipt)
            raise published
        self._closing.spawn(self._close_leased(receipt.receipt_id))

    async def close(self, receipt_id: str) -> None:
        """Close the entry of a call refused before anything was sent (no receipt)."""
        try:
            await self._journal.close(receipt_id)
        except Exception as exc:
            log.warning("closing journal entry %s failed: %s", receipt_id, exc)

    async def _close_leased(self, receipt_id: str) -> None:
        started = time.monotonic()
        for pause in (*self._retries, None):
            try:
                await self._journal.close(receipt_id)
                return
            except Exception as exc:
                if pause is None:  # recovery will publish it again; the known outcome wins
                    log.warning("closing journal entry %s failed for %.0f s: %s", receipt_id,
                                time.monotonic() - started, exc)
                    return
                await asyncio.sleep(pause)

    async def drain(self, timeout: float = 5) -> None:
        """Wait for journal entries being closed (at shutdown)."""
        await self._closing.drain(timeout=timeout)
