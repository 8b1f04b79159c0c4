"""Recovery of journaled receipts: only overdue entries, one replica each, final receipt first."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest

from bkn_common.contracts import events as ev
from tool_executor.adapters.memory_receipt_journal import MemoryReceiptJournal
from tool_executor.service_layer.receipt_recovery import ReceiptRecovery


def receipt(rid: str, *, known: bool) -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id=rid, kn_id="kn", owner_id="box", tool_id="tool", capability_type="function",
        caller="alice", proxy_id="px", arguments_hash="ah",
        outcome="succeeded" if known else "upstream_error", status_code=200 if known else None,
        latency_ms=3.0 if known else 0.0, executed_at=datetime(2026, 1, 1, tzinfo=UTC),
        outcome_known=known,
    )


@dataclass
class Published:
    events: list[ev.Event] = field(default_factory=list)

    async def publish(self, event: ev.Event) -> None:
        self.events.append(event)


async def test_only_overdue_entries_are_published_and_closed() -> None:
    journal, sink = MemoryReceiptJournal(), Published()
    await journal.open(receipt("late", known=False), deadline=100.0)
    await journal.open(receipt("running", known=False), deadline=200.0)
    recovery = ReceiptRecovery(journal, sink, clock=lambda: 150.0)
    assert await recovery.sweep() == 1
    assert [(e.receipt_id, e.outcome_known) for e in sink.events] == [("late", False)]  # type: ignore[attr-defined]
    assert set(journal.entries) == {"running"}
    assert await recovery.sweep() == 0  # nothing else is due yet


async def test_a_settled_entry_publishes_its_final_receipt() -> None:
    journal, sink = MemoryReceiptJournal(), Published()
    await journal.open(receipt("refused-by-kafka", known=True), deadline=1.0)
    await ReceiptRecovery(journal, sink, clock=lambda: 2.0).sweep()
    (published,) = sink.events
    assert isinstance(published, ev.ExecutionReceiptRecorded)
    assert (published.outcome, published.outcome_known) == ("succeeded", True)


async def test_an_entry_leased_by_another_replica_is_left_alone() -> None:
    journal, sink = MemoryReceiptJournal(), Published()
    await journal.open(receipt("theirs", known=False), deadline=1.0)
    assert await journal.claim("theirs", seconds=60)  # another replica's lease
    assert await ReceiptRecovery(journal, sink, clock=lambda: 2.0).sweep() == 0
    assert sink.events == [] and "theirs" in journal.entries


async def test_a_failed_publish_keeps_the_entry_for_the_next_sweep() -> None:
    journal = MemoryReceiptJournal()
    await journal.open(receipt("r", known=False), deadline=1.0)

    class Refusing:
        async def publish(self, event: ev.Event) -> None:
            raise ConnectionError("broker away")

    recovery = ReceiptRecovery(journal, Refusing(), clock=lambda: 2.0)
    with pytest.raises(ConnectionError):
        await recovery.sweep()
    assert "r" in journal.entries  # still open: the lease lapses and a later sweep retries
