"""An executor's own receipt is published once: recovery leaves the entry alone while the
executor publishes it, and a close that failed once is retried, not left for recovery."""

from __future__ import annotations

import asyncio

import pytest

from bkn_common.contracts import events as ev
from tests.unit.tool_executor.test_receipt_recovery import Published, receipt
from tool_executor.adapters.memory_receipt_journal import MemoryReceiptJournal
from tool_executor.service_layer.receipt_publication import ReceiptPublication
from tool_executor.service_layer.receipt_recovery import ReceiptRecovery


class SlowBroker(Published):
    """Acknowledges a publish only when ``ack`` is set (a broker that is away meanwhile)."""

    def __init__(self) -> None:
        super().__init__()
        self.sending, self.ack = asyncio.Event(), asyncio.Event()

    async def publish(self, event: ev.Event) -> None:
        self.sending.set()
        await self.ack.wait()
        await super().publish(event)


class CloseFailsOnce(MemoryReceiptJournal):
    """The first close meets a connection the restarted Redis had closed."""

    def __init__(self) -> None:
        super().__init__()
        self.closes = 0

    async def close(self, receipt_id: str) -> None:
        self.closes += 1
        if self.closes == 1:
            raise ConnectionError("Connection closed by server.")
        await super().close(receipt_id)


async def test_recovery_leaves_an_entry_alone_while_its_executor_publishes_it() -> None:
    journal, broker = MemoryReceiptJournal(), SlowBroker()
    await journal.open(receipt("r", known=False), deadline=1.0)
    publication = ReceiptPublication(journal, broker)
    publishing = asyncio.create_task(publication.record(receipt("r", known=True)))
    await broker.sending.wait()  # the executor's publish waits for the broker
    recovered = Published()
    recovery = ReceiptRecovery(journal, recovered, clock=lambda: 2.0)  # the entry is overdue
    assert await recovery.sweep() == 0 and recovered.events == []
    broker.ack.set()
    await publishing
    await publication.drain()
    assert [(e.receipt_id, e.outcome_known) for e in broker.events] == [("r", True)]  # type: ignore[attr-defined]
    assert journal.entries == {} and await recovery.sweep() == 0


async def test_a_close_that_failed_once_is_retried() -> None:
    journal, broker = CloseFailsOnce(), Published()
    await journal.open(receipt("r", known=False), deadline=1.0)
    publication = ReceiptPublication(journal, broker, close_retry_seconds=(0.0,))
    await publication.record(receipt("r", known=True))
    await publication.drain()
    assert journal.closes == 2 and journal.entries == {}
    assert await ReceiptRecovery(journal, broker, clock=lambda: 1e12).sweep() == 0
    assert len(broker.events) == 1


async def test_a_refused_publish_leaves_the_final_receipt_for_recovery() -> None:
    journal = MemoryReceiptJournal(clock=lambda: 0.0)

    class Refusing(Published):
        async def publish(self, event: ev.Event) -> None:
            raise ConnectionError("broker away")

    await journal.open(receipt("r", known=False), deadline=1.0)
    publication = ReceiptPublication(journal, Refusing())
    with pytest.raises(ConnectionError):
        await publication.record(receipt("r", known=True))
    assert journal.entries["r"].outcome_known  # settled: recovery publishes the known outcome


class SlowLease(MemoryReceiptJournal):
    """A lease that Redis grants only when ``grant`` is set (or refuses: Redis away)."""

    def __init__(self, refuse: bool = False) -> None:
        super().__init__()
        self.asked, self.grant, self.refuse = asyncio.Event(), asyncio.Event(), refuse

    async def claim(self, receipt_id: str, seconds: float) -> bool:
        self.asked.set()
        await self.grant.wait()
        if self.refuse:
            raise ConnectionError("Redis away")
        return await super().claim(receipt_id, seconds)


async def test_the_receipt_is_sent_while_the_lease_is_being_taken() -> None:
    journal, broker = SlowLease(), SlowBroker()
    await journal.open(receipt("r", known=False), deadline=1.0)
    publication = ReceiptPublication(journal, broker)
    publishing = asyncio.create_task(publication.record(receipt("r", known=True)))
    await asyncio.wait_for(broker.sending.wait(), 5)  # sent before Redis answered the lease
    assert journal.asked.is_set() and not publishing.done()
    broker.ack.set()
    await asyncio.sleep(0)
    assert not publishing.done() and "r" in journal.entries  # waits for the lease before closing
    journal.grant.set()
    await publishing
    await publication.drain()
    assert len(broker.events) == 1 and journal.entries == {}
    recovery = ReceiptRecovery(journal, Published(), clock=lambda: 2.0)
    assert await recovery.sweep() == 0


async def test_a_lease_redis_refuses_does_not_stop_the_receipt() -> None:
    journal, broker = SlowLease(refuse=True), Published()
    journal.grant.set()
    await journal.open(receipt("r", known=False), deadline=1.0)
    publication = ReceiptPublication(journal, broker)
    await publication.record(receipt("r", known=True))
    await publication.drain()
    assert [(e.receipt_id, e.outcome_known) for e in broker.events] == [("r", True)]  # type: ignore[attr-defined]
    assert journal.entries == {}
