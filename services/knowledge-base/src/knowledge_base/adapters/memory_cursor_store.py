"""The ``CursorStore`` port in one process (unit tests, single-process tools like the eval)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from bkn_common.contracts import json_codec


class MemoryCursorStore:
    """Cursors kept as JSON, as Redis keeps them: a caller's later change is not in one, and
    what comes back is what a Redis replica would read (tuples as lists)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._items: dict[str, tuple[float, bytes]] = {}
        self._clock = clock

    async def put(self, token: str, value: dict[str, Any], ttl_seconds: int) -> None:
        self._items[token] = (self._clock() + ttl_seconds, json_codec.dumps(value))

    async def get(self, token: str) -> dict[str, Any] | None:
        item = self._items.get(token)
        if item is None or item[0] <= self._clock():
            self._items.pop(token, None)
            return None
        value: dict[str, Any] = json_codec.loads(item[1])
        return value
