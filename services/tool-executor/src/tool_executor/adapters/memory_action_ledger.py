"""The action ledger in process memory: the same port as Redis, for tests."""

from __future__ import annotations

import time
from collections.abc import Callable

from tool_executor.domain.actions import STARTED, CallOutcome


class MemoryActionLedger:
    """The :class:`~tool_executor.service_layer.ports.ActionLedger` port in dicts.

    ``clock`` (seconds) decides when a lease lapses, so tests need not sleep.
    """

    def __init__(self, lease_seconds: float = 15.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lease_seconds = lease_seconds
        self._clock = clock
        self._leases: dict[str, tuple[str, float]] = {}
        self._calls: dict[str, dict[int, str]] = {}
        self._done: set[str] = set()

    def _holder(self, execution_id: str) -> str | None:
        lease = self._leases.get(execution_id)
        if lease is None or self._clock() >= lease[1]:
            self._leases.pop(execution_id, None)
            return None
        return lease[0]

    async def is_done(self, execution_id: str) -> bool:
        return execution_id in self._done

    async def acquire(self, execution_id: str, token: str) -> bool:
        if self._holder(execution_id) is not None:
            return False
        self._leases[execution_id] = (token, self._clock() + self.lease_seconds)
        return True

    async def renew(self, execution_id: str, token: str) -> bool:
        if self._holder(execution_id) != token:
            return False
        self._leases[execution_id] = (token, self._clock() + self.lease_seconds)
        return True

    async def release(self, execution_id: str, token: str) -> None:
        if self._holder(execution_id) == token:
            del self._leases[execution_id]

    async def outcomes(self, execution_id: str) -> dict[int, str]:
        return dict(self._calls.get(execution_id, {}))

    async def claim(self, execution_id: str, index: int) -> bool:
        calls = self._calls.setdefault(execution_id, {})
        if index in calls:
            return False
        calls[index] = STARTED
        return True

    async def record(self, execution_id: str, index: int, outcome: CallOutcome) -> None:
        self._calls.setdefault(execution_id, {})[index] = outcome.dump()

    async def finish(self, execution_id: str) -> None:
        self._done.add(execution_id)
