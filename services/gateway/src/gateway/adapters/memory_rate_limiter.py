"""The :class:`~gateway.service_layer.rate_limits.RateLimiter` port in one process."""

from __future__ import annotations

import time
from collections.abc import Callable

from gateway.service_layer.rate_limits import Admission, BucketRates


class MemoryRateLimiter:
    """The port in one process (tests, a single replica without Redis)."""

    def __init__(self, account: BucketRates, tool: BucketRates,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._rates = {"account": account, "tool": tool}
        self._clock = clock
        self._buckets: dict[tuple[str, ...], tuple[float, float]] = {}

    def _level(self, key: tuple[str, ...], rates: BucketRates, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(rates.burst), now))
        return min(float(rates.burst), tokens + max(0.0, now - at) * rates.per_second)

    async def take(self, account: str, tool: str) -> Admission:
        now = self._clock()
        keys = {"account": (account,), "tool": (account, tool)}
        levels = {scope: self._level(keys[scope], self._rates[scope], now) for scope in keys}
        waits = {scope: (1 - level) / self._rates[scope].per_second
                 for scope, level in levels.items() if level < 1}
        if waits:
            scope = max(waits, key=lambda s: waits[s])
            return Admission(False, scope, waits[scope])
        for scope, level in levels.items():
            self._buckets[keys[scope]] = (level - 1, now)
        return Admission(True)
