"""The ``ActionSubmissions`` port in one process (tests)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from bkn_common.framework.digest import canonical


class MemoryActionSubmissions:
    """One process's submissions (tests): the same windows on a monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._holders: dict[str, tuple[str, float]] = {}
        self._pending: dict[str, tuple[str, float]] = {}

    def _live(self, table: dict[str, tuple[str, float]], key: str) -> str | None:
        entry = table.get(key)
        if entry is None or entry[1] <= self._clock():
            table.pop(key, None)
            return None
        return entry[0]

    async def claim(self, fingerprint: str, execution_id: str, window_seconds: int) -> str | None:
        holder = self._live(self._holders, fingerprint)
        if holder is not None:
            return holder
        self._holders[fingerprint] = (execution_id, self._clock() + window_seconds)
        return None

    async def release(self, fingerprint: str, execution_id: str) -> None:
        if self._live(self._holders, fingerprint) == execution_id:
            del self._holders[fingerprint]

    async def mark_pending(self, execution_id: str, record: dict[str, Any], ttl_seconds: int) -> None:
        self._pending[execution_id] = (canonical(record), self._clock() + ttl_seconds)

    async def pending(self, execution_id: str) -> dict[str, Any] | None:
        raw = self._live(self._pending, execution_id)
        record: dict[str, Any] | None = json.loads(raw) if raw else None
        return record
