"""Per-operation invocation counter shared by the demo upstreams."""

from __future__ import annotations

import threading
from collections.abc import Iterable


class CallCounter:
    """Thread-safe counter of upstream executions keyed by operation id / tool name.

    The known keys are always reported (with 0 when never called), so a snapshot is a
    complete ``{operation_id: count}`` map; unknown keys are added on first increment.
    """

    def __init__(self, known: Iterable[str] = ()) -> None:
        self._known = tuple(known)
        self._lock = threading.Lock()
        self._counts: dict[str, int] = dict.fromkeys(self._known, 0)

    def increment(self, key: str) -> int:
        """Count one execution of ``key`` and return the new count."""
        with self._lock:
            value = self._counts.get(key, 0) + 1
            self._counts[key] = value
            return value

    def get(self, key: str) -> int:
        with self._lock:
            return self._counts.get(key, 0)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def reset(self) -> dict[str, int]:
        """Zero every counter and return the (zeroed) snapshot."""
        with self._lock:
            self._counts = dict.fromkeys(self._known, 0)
            return dict(self._counts)
