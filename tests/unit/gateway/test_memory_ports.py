"""The gateway's memory adapters pass their ports' contracts (Redis:
tests/integration/mcp/test_redis_ports.py and tests/integration/mesh/test_rate_limits.py), and
their clocks behave as Redis's expiry does."""

from __future__ import annotations

import pytest

from gateway.adapters.memory_action_submissions import MemoryActionSubmissions
from gateway.adapters.memory_rate_limiter import MemoryRateLimiter
from gateway.adapters.memory_session_store import MemorySessionStore
from tests.contracts import ManualClock, ManualTime, action_submissions, rate_limiter, session_store


class TestMemorySessionStore(ManualTime, session_store.SessionStoreContract):
    @pytest.fixture
    def opener(self, clock: ManualClock) -> session_store.Opener:
        stores: dict[int, MemorySessionStore] = {}
        return lambda ttl: stores.setdefault(ttl, MemorySessionStore(ttl, clock))


class TestMemoryActionSubmissions(ManualTime, action_submissions.ActionSubmissionsContract):
    @pytest.fixture
    def opener(self, clock: ManualClock) -> action_submissions.Opener:
        shared = MemoryActionSubmissions(clock)
        return lambda: shared


class TestMemoryRateLimiter(rate_limiter.RateLimiterContract):
    @pytest.fixture
    def opener(self) -> rate_limiter.Opener:
        return MemoryRateLimiter


async def test_a_session_in_use_stays_and_an_idle_one_goes() -> None:
    clock = ManualClock()
    store = MemorySessionStore(ttl_seconds=10, clock=clock)
    used, idle = await store.create("alice", "full", None), await store.create("alice", "full", None)
    for _ in range(3):
        await clock.elapse(6)
        assert await store.valid(used, "alice", "full")
    assert not await store.valid(idle, "alice", "full")


async def test_a_window_lapses_at_its_end() -> None:
    clock = ManualClock()
    port = MemoryActionSubmissions(clock)
    assert await port.claim("f", "aex_1", 60) is None
    await clock.elapse(59.9)
    assert await port.claim("f", "aex_2", 60) == "aex_1"
    await clock.elapse(0.1)
    assert await port.claim("f", "aex_2", 60) is None
