"""The contract of tool-executor's ``ReceiptJournal`` port (memory and Redis adapters).

Subclasses provide the fixtures ``journal`` (a fresh key space per test) and ``elapse``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bkn_common.contracts import events as ev
from tests.contracts import Elapse
from tool_executor.service_layer.ports import ReceiptJournal


def receipt(rid: str, *, known: bool) -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id=rid, kn_id="kn", owner_id="box", tool_id="tool", capability_type="function",
        caller="alice", proxy_id="px", arguments_hash="ah",
        outcome="succeeded" if known else "upstream_error", latency_ms=1.0,
        executed_at=datetime.now(UTC), outcome_known=known,
    )


class ReceiptJournalContract:
    async def test_entries_are_overdue_after_their_deadline_earliest_first(
        self, journal: ReceiptJournal
    ) -> None:
        await journal.open(receipt("later", known=False), deadline=10_000.0)
        await journal.open(receipt("due", known=False), deadline=100.0)
        await journal.open(receipt("due-too", known=False), deadline=150.0)
        assert await journal.open_count() == 3
        assert await journal.overdue(now=200.0, limit=10) == ["due", "due-too"]
        assert await journal.overdue(now=200.0, limit=1) == ["due"]
        assert await journal.overdue(now=50.0, limit=10) == []
        provisional = await journal.read("due")
        assert provisional is not None and not provisional.outcome_known
        assert provisional.outcome == "upstream_error"

    async def test_settle_replaces_an_open_entry_and_never_creates_one(
        self, journal: ReceiptJournal
    ) -> None:
        await journal.open(receipt("due", known=False), deadline=100.0)
        await journal.settle(receipt("due", known=True))
        settled = await journal.read("due")
        assert settled is not None and settled.outcome_known and settled.outcome == "succeeded"
        await journal.settle(receipt("never-opened", known=True))  # settle never creates
        assert await journal.read("never-opened") is None
        assert await journal.open_count() == 1

    async def test_a_closed_entry_is_gone(self, journal: ReceiptJournal) -> None:
        await journal.open(receipt("due", known=False), deadline=100.0)
        await journal.open(receipt("later", known=False), deadline=10_000.0)
        await journal.close("due")
        assert await journal.read("due") is None
        assert await journal.overdue(now=20_000.0, limit=10) == ["later"]
        await journal.close("later")
        await journal.close("never-opened")  # harmless
        assert await journal.open_count() == 0
        assert await journal.overdue(now=20_000.0, limit=10) == []

    async def test_one_replica_at_a_time_recovers_an_entry(
        self, journal: ReceiptJournal, elapse: Elapse
    ) -> None:
        await journal.open(receipt("due", known=False), deadline=100.0)
        assert await journal.claim("due", seconds=1) is True
        assert await journal.claim("due", seconds=1) is False  # another replica
        await elapse(1.2)  # that replica stopped: its lease lapses
        assert await journal.claim("due", seconds=5) is True
