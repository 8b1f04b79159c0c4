"""Is the trace core usable? The probe the gateway asks, and the gate in front of writes."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from trace_recorder.service_layer.ports import Coordination
from trace_recorder.service_layer.recording import unavailable


class ProjectionState(Protocol):
    """What the health checks read of the projection runner."""

    caught_up: asyncio.Event

    @property
    def running(self) -> bool: ...


class Health:
    def __init__(
        self, coordination: Coordination, projection: ProjectionState, probe_timeout: float = 0.5
    ) -> None:
        self._coordination = coordination
        self._projection = projection
        self._probe_timeout = probe_timeout

    def projection_usable(self) -> bool:
        return self._projection.running and self._projection.caught_up.is_set()

    async def available(self) -> bool:
        """Bounded and read-only: Redis answers a ping and the store is replayed and running."""
        if not self.projection_usable():
            return False
        with contextlib.suppress(Exception):
            return await asyncio.wait_for(self._coordination.ping(), self._probe_timeout)
        return False

    async def wait_until_replayed(self, wait_seconds: float) -> None:
        """Writes decide on the store, so they wait (bounded) for the initial replay."""
        if not self._projection.running:
            raise unavailable("the trace store is not running")
        try:
            await asyncio.wait_for(self._projection.caught_up.wait(), wait_seconds)
        except TimeoutError as exc:
            raise unavailable("the trace store is still replaying the log") from exc
