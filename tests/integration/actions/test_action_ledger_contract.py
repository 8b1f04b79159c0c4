"""The ActionLedger contract (tests/contracts/action_ledger.py) on the real Redis (memory: the
unit suite, tests/unit/tool_executor/test_action_ledger_contract.py)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from tests.contracts import Elapse
from tests.contracts.action_ledger import ActionLedgerContract, LedgerFor
from tests.support.infra import Infra
from tool_executor.adapters.action_ledger import RedisActionLedger


class TestRedisActionLedger(ActionLedgerContract):
    @pytest.fixture
    async def ledger_for(self, infra: Infra) -> AsyncIterator[LedgerFor]:
        client = Redis.from_url(infra.redis, decode_responses=True)
        prefix = f"bkn:test-ledger-{uuid.uuid4().hex[:8]}:"
        try:
            yield lambda lease_seconds: RedisActionLedger(client, prefix, lease_seconds)
        finally:
            keys = [key async for key in client.scan_iter(match=prefix + "*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()

    @pytest.fixture
    def elapse(self) -> Elapse:
        return asyncio.sleep
