"""The gateway's memory adapters pass their ports' contracts (Redis: the integration run), and
their clocks behave as Redis's expiry does."""

from __future__ import annotations

import pytest

from gateway.adapters.action_submissions import MemoryActionSubmissions
from gateway.adapters.rate_limit import MemoryRateLimiter
from gateway.adapters.sessions import MemorySessionStore
from tests.contracts import Elapse, ManualClock, action_submissions, rate_limiter, session_store


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


class TestMemorySessionStore(session_store.SessionStoreContract):
    @pytest.fixture
    def opener(self, clock: ManualClock) -> session_store.Opener:
        stores: dict[int, MemorySessionStore] = {}
        return lambda ttl: stores.setdefault(ttl, MemorySessionStore(ttl, clock))

    @pytest.fixture
    def elapse(self, clock: ManualClock) -> Elapse:
        return clock.elapse


class TestMemoryRateLimiter(rate_limiter.RateLimiterContract):
    @pytest.fixture
    def opener(self) -> rate_limiter.Opener:
        return MemoryRateLimiter


class TestMemoryActionSubmissions(action_submissions.ActionSubmissionsContract):
    @pytest.fixture
    def opener(self, clock: ManualClock) -> action_submissions.Opener:
        shared = MemoryActionSubmissions(clock)
        return lambda: shared

    @pytest.fixture
    def elapse(self, clock: ManualClock) -> Elapse:
        return clock.elapse


async def test_a_session_in_use_stays_and_an_idle_one_goes(clock: ManualClock) -> None:
    store = MemorySessionStore(ttl_seconds=10, clock=clock)
    used, idle = await store.create("alice", "full", None), await store.create("alice", "full", None)
    for _ in range(3):
        clock.now += 6
        assert await store.valid(used, "alice", "full")
    assert not await store.valid(idle, "alice", "full")


async def test_a_window_lapses_at_its_end(clock: ManualClock) -> None:
    port = MemoryActionSubmissions(clock)
    assert await port.claim("f", "aex_1", 60) is None
    clock.now += 59.9
    assert await port.claim("f", "aex_2", 60) == "aex_1"
    clock.now += 0.1
    assert await port.claim("f", "aex_2", 60) is None
