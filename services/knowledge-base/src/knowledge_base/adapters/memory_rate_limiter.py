"""The ``RateLimiter`` port in one process (unit tests, single-process tools like the eval)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


class MemoryRateLimiter:
    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate, self._burst, self._clock = per_second, burst, clock
        self._buckets: dict[str, tuple[float, float]] = {}

    async def take(self, account: str) -> int | None:
        now = self._clock()
        tokens, at = self._buckets.get(account, (float(self._burst), now))
        tokens = min(self._burst, tokens + max(0.0, now - at) * self._rate)
        if tokens >= 1:
            self._buckets[account] = (tokens - 1, now)
            return None
        self._buckets[account] = (tokens, now)
        return max(1, math.ceil((1 - tokens) / self._rate))
