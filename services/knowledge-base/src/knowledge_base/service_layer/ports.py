"""Ports of the knowledge-base service (adapters implement them; one contract suite each)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np


class CursorStore(Protocol):
    """Opaque search cursors: the ranked result they continue, kept for a TTL."""

    async def put(self, token: str, value: dict[str, Any], ttl_seconds: int) -> None: ...

    async def get(self, token: str) -> dict[str, Any] | None: ...


class RateLimiter(Protocol):
    """A per-account token bucket."""

    async def take(self, account: str) -> int | None:
        """None when the call may run; else seconds to wait (at least 1)."""
        ...


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...
