"""Coordination in process memory: the same port as Redis, for tests and single-node dev."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from trace_recorder.service_layer.ports import CoordinationUnavailable, Deferred, OperationClaim


class MemoryCoordination:
    """The :class:`~trace_recorder.service_layer.ports.Coordination` port in a dict.

    ``clock`` (seconds) decides expiry, so tests can let leases lapse without sleeping;
    ``available = False`` makes every call fail as an unreachable Redis would.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._values: dict[str, tuple[str, float | None]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._indexes: dict[str, dict[str, float]] = {}  # sorted sets: member -> score
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

    def _claim(self, key: str, holder: str, ttl: int) -> str | None:
        current = self._live(key)
        if current is None or current == holder:
            self._set(key, holder, ttl)
            return None
        return current

    def _incr(self, key: str, ttl: int) -> int:
        current = self._live(key)
        n = int(current or 0) + 1
        if n == 1:  # as Redis: the TTL is set whenever the counter comes to 1
            self._set(key, str(n), ttl)
        else:
            self._values[key] = (str(n), self._values[key][1])
        return n

    def _decr(self, key: str) -> None:
        current = self._live(key)
        expires = self._values[key][1] if current is not None else None
        self._values[key] = (str(int(current or 0) - 1), expires)

    async def claim(self, key: str, holder: str, ttl: int) -> str | None:
        self._check()
        return self._claim(key, holder, ttl)

    async def release(self, key: str, holder: str) -> None:
        self._check()
        if self._live(key) == holder:
            del self._values[key]

    async def delete(self, key: str) -> None:
        self._check()
        self._values.pop(key, None)

    async def incr(self, key: str, ttl: int) -> int:
        self._check()
        return self._incr(key, ttl)

    async def decr(self, key: str) -> None:
        self._check()
        self._decr(key)

    async def claim_operation(
        self, key: str, input_hash: str, *, in_flight_ttl: int, lease_key: str,
        lease_holder: str, lease_ttl: int, counter_key: str, counter_ttl: int, limit: int,
        stored_count: int, stored_hash: str | None, deferred: Deferred | None = None,
    ) -> OperationClaim:
        # no await inside: atomic for this event loop, as the script is on Redis
        self._check()
        marker = self._live(key)
        if stored_hash is not None:  # the store holds it: re-arm the in-flight marker
            recorded = stored_hash
            if marker is None:
                self._set(key, input_hash, in_flight_ttl)
        elif marker is not None:  # in flight (perhaps begun by another instance)
            recorded = marker
        else:  # new
            if stored_count >= limit:
                return OperationClaim("limit")
            holder = self._claim(lease_key, lease_holder, lease_ttl)
            if holder is not None:
                return OperationClaim("superseded", holder=holder)
            n = self._incr(counter_key, counter_ttl)
            if max(n, stored_count + 1) > limit:
                self._decr(counter_key)
                return OperationClaim("limit")
            self._set(key, input_hash, in_flight_ttl)
            if deferred is not None:
                self._set(deferred.key, deferred.record, deferred.ttl)
                self._indexes.setdefault(deferred.index, {})[deferred.member] = (
                    self._clock() + deferred.delay_seconds)
            return OperationClaim("new", count=n)
        if recorded != input_hash:
            return OperationClaim("conflict", recorded_hash=recorded)
        holder = self._claim(lease_key, lease_holder, lease_ttl)
        if holder is not None:
            return OperationClaim("superseded", recorded_hash=recorded, holder=holder)
        return OperationClaim("existing", recorded_hash=recorded)

    async def take_due(
        self, index: str, key_prefix: str, *, lease_seconds: int, limit: int,
        everything: bool = False,
    ) -> list[tuple[str, str]]:
        self._check()
        scores = self._indexes.get(index, {})
        now = self._clock()
        due = sorted((score, member) for member, score in scores.items()
                     if everything or score <= now)[:limit]
        taken = []
        for _, member in due:
            record = self._live(key_prefix + member)
            if record is None:
                del scores[member]
                continue
            scores[member] = now + lease_seconds
            taken.append((member, record))
        return taken

    async def forget(self, index: str, key: str, member: str) -> None:
        self._check()
        self._indexes.get(index, {}).pop(member, None)
        self._values.pop(key, None)
