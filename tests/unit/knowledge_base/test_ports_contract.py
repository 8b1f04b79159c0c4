"""The knowledge-base port contracts (tests/contracts/kb_ports.py) on the memory adapters
(Redis: tests/integration/knowledge_base/test_ports.py)."""

from __future__ import annotations

import pytest
from knowledge_base.adapters.memory_cursor_store import MemoryCursorStore
from knowledge_base.adapters.memory_rate_limiter import MemoryRateLimiter
from knowledge_base.service_layer.ports import CursorStore

from tests.contracts import ManualClock, ManualTime
from tests.contracts.kb_ports import CursorStoreContract, LimiterFor, RateLimiterContract


class TestMemoryCursorStore(ManualTime, CursorStoreContract):
    @pytest.fixture
    def cursors(self, clock: ManualClock) -> CursorStore:
        return MemoryCursorStore(clock)


class TestMemoryRateLimiter(ManualTime, RateLimiterContract):
    @pytest.fixture
    def limiter_for(self, clock: ManualClock) -> LimiterFor:
        return lambda per_second, burst: MemoryRateLimiter(per_second, burst, clock)
