"""The contract of tool-executor's ``ActionLedger`` port (memory and Redis adapters).

Subclasses provide the fixtures ``ledger_for`` (a ledger with the given lease duration, in
a fresh key space per test) and ``elapse``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.contracts import Elapse
from tool_executor.domain.actions import STARTED, CallOutcome
from tool_executor.service_layer.ports import ActionLedger

LedgerFor = Callable[[float], ActionLedger]


class ActionLedgerContract:
    @pytest.fixture
    def ledger(self, ledger_for: LedgerFor) -> ActionLedger:
        return ledger_for(60.0)

    async def test_one_holder_of_a_lease(self, ledger: ActionLedger) -> None:
        assert ledger.lease_seconds == 60.0
        assert await ledger.acquire("x1", "a")
        assert not await ledger.acquire("x1", "b")
        assert await ledger.acquire("x2", "b")  # per execution
        assert await ledger.renew("x1", "a")
        assert not await ledger.renew("x1", "b")
        await ledger.release("x1", "b")  # not the holder: nothing happens
        assert not await ledger.acquire("x1", "c")
        await ledger.release("x1", "a")
        assert await ledger.acquire("x1", "b")

    async def test_a_lapsed_lease_is_lost_to_its_holder(
        self, ledger_for: LedgerFor, elapse: Elapse
    ) -> None:
        ledger = ledger_for(1.0)
        assert await ledger.acquire("x1", "a")
        await elapse(1.3)
        assert not await ledger.renew("x1", "a")
        assert await ledger.acquire("x1", "b")

    async def test_renewing_keeps_the_lease(self, ledger_for: LedgerFor, elapse: Elapse) -> None:
        ledger = ledger_for(2.0)
        assert await ledger.acquire("x1", "a")
        await elapse(1.2)
        assert await ledger.renew("x1", "a")
        await elapse(1.2)  # past the first term, within the renewed one
        assert not await ledger.acquire("x1", "b")
        assert await ledger.renew("x1", "a")

    async def test_a_call_is_claimed_once_and_keeps_its_outcome(self, ledger: ActionLedger) -> None:
        assert await ledger.outcomes("x1") == {}
        assert await ledger.claim("x1", 0)
        assert not await ledger.claim("x1", 0)
        assert await ledger.outcomes("x1") == {0: STARTED}
        outcome = CallOutcome(True, {"rows": [1, "二"]})
        await ledger.record("x1", 0, outcome)
        assert not await ledger.claim("x1", 0)  # never sent again
        assert await ledger.claim("x1", 1)
        recorded = await ledger.outcomes("x1")
        assert recorded.keys() == {0, 1} and recorded[1] == STARTED
        assert CallOutcome.load(recorded[0]) == outcome
        assert await ledger.outcomes("x2") == {}

    async def test_finished_executions_are_done(self, ledger: ActionLedger) -> None:
        assert not await ledger.is_done("x1")
        assert await ledger.claim("x1", 0)
        await ledger.record("x1", 0, CallOutcome(False, {"message": "no"}, "tool_error"))
        await ledger.finish("x1")
        assert await ledger.is_done("x1") and not await ledger.is_done("x2")
        assert list(await ledger.outcomes("x1")) == [0]  # the done mark is not a call
