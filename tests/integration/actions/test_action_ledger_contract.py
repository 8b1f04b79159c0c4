"""The ActionLedger contract (tests/contracts/action_ledger.py) on the real Redis (memory: the
unit suite, tests/unit/tool_executor/test_action_ledger_contract.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.contracts import RealTime, scratch_redis
from tests.contracts.action_ledger import ActionLedgerContract, LedgerFor
from tests.support.infra import Infra
from tool_executor.adapters.action_ledger import RedisActionLedger


class TestRedisActionLedger(RealTime, ActionLedgerContract):
    @pytest.fixture
    async def ledger_for(self, infra: Infra) -> AsyncIterator[LedgerFor]:
        async with scratch_redis(infra.redis, decode_responses=True) as (client, prefix):
            yield lambda lease_seconds: RedisActionLedger(client, prefix, lease_seconds)
