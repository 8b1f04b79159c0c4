"""One contract suite per port with state, run against every adapter of it.

Each module holds a ``...Contract`` class of tests. A test module subclasses it and provides
its fixtures (the adapter, fresh per test, and ``elapse``: how time passes for it): the
in-memory fake in ``tests/unit`` (a manual clock), the real adapter in ``tests/integration``
(real Redis, real time). The class names do not start with ``Test``, so a contract runs only
where it is subclassed. (``tests/support/trace_view_contract.py`` follows the same idea for the
trace view, on SQLite, PostgreSQL and memory.) A port whose real adapter needs no server runs
both subclasses in ``tests/unit`` (``embedder``); one whose rules do not involve time has no
``elapse`` (``trace_core``, ``embedder``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from redis.asyncio import Redis

Elapse = Callable[[float], Awaitable[None]]
"""Let ``seconds`` pass for the adapter under test (sleep, or advance a manual clock)."""


class ManualClock:
    """A clock (seconds) that moves only when told; ``elapse`` is an :data:`Elapse`."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    async def elapse(self, seconds: float) -> None:
        self.now += seconds


class ManualTime:
    """Mixin of an in-memory run: ``clock`` (a :class:`ManualClock`) and its ``elapse``."""

    @pytest.fixture
    def clock(self) -> ManualClock:
        return ManualClock()

    @pytest.fixture
    def elapse(self, clock: ManualClock) -> Elapse:
        return clock.elapse


class RealTime:
    """Mixin of a run on a real server: time passes by sleeping."""

    @pytest.fixture
    def elapse(self) -> Elapse:
        return asyncio.sleep


@asynccontextmanager
async def scratch_redis(url: str, *, decode_responses: bool = False) -> AsyncIterator[tuple[Redis, str]]:
    """A client and a fresh key prefix; the prefix's keys are deleted afterwards."""
    client = Redis.from_url(url, decode_responses=decode_responses)
    prefix = f"bkn:test-contract-{uuid.uuid4().hex[:8]}:"
    try:
        yield client, prefix
    finally:
        keys = [key async for key in client.scan_iter(match=prefix + "*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
