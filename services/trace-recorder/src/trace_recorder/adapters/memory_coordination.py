"""Coordination in process memory: the same port as Redis, for tests and single-node dev."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from trace_recorder.service_layer.ports import CoordinationUnavailable


class MemoryCoordination:
    """The :class:`~trace_recorder.service_layer.ports.Coordination` port in a dict.

    ``clock`` (seconds) decides expiry, so tests can let leases lapse without sleeping;
    ``available = False`` makes every call fail as an unreachable Redis would.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._values: dict[str, tuple[str, float | None]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.available = True

    def _check(self) -> None:
        if not self.available:
            raise CoordinationUnavailable("memory coordination switched off")

    def _live(self, key: str) -> str | None:
        entry = self._values.get(key)
        if entry is None:
            return None
        value, expires = entry
        if expires is not None and self._clock() >= expires:
            del self._values[key]
            return None
        return value

    def _set(self, key: str, value: str, ttl: int | None) -> None:
        self._values[key] = (value, None if ttl is None else self._clock() + ttl)

    async def ping(self) -> bool:
        return self.available

    @asynccontextmanager
    async def lock(self, name: str, wait_seconds: float) -> AsyncIterator[None]:
        self._check()
        lock = self._locks.setdefault(name, asyncio.Lock())
        try:
            await asyncio.wait_for(lock.acquire(), wait_seconds)
        except TimeoutError as exc:
            raise CoordinationUnavailable(f"lock {name} not had in {wait_seconds}s") from exc
        try:
            yield
        finally:
            lock.release()

    async def get(self, key: str) -> str | None:
        self._check()
        return self._live(key)

    async def put(
        self, key: str, value: str, *, ttl: int | None = None, only_if_absent: bool = False
    ) -> bool:
        self._check()
        if only_if_absent and self._live(key) is not None:
            return False
        self._set(key, value, ttl)
        return True

    async def claim(self, key: str, holder: str, ttl: int) -> str | None:
        self._check()
        current = self._live(key)
        if current is None or current == holder:
            self._set(key, holder, ttl)
            return None
        return current

    async def release(self, key: str, holder: str) -> None:
        self._check()
        if self._live(key) == holder:
            del self._values[key]

    async def delete(self, key: str) -> None:
        self._check()
        self._values.pop(key, None)

    async def incr(self, key: str, ttl: int) -> int:
        self._check()
        current = self._live(key)
        if current is None:
            self._set(key, "1", ttl)
            return 1
        expires = self._values[key][1]
        self._values[key] = (str(int(current) + 1), expires)
        return int(current) + 1

    async def decr(self, key: str) -> None:
        self._check()
        current = self._live(key)
        expires = self._values[key][1] if current is not None else None
        self._values[key] = (str(int(current or 0) - 1), expires)
