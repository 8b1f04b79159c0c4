"""Work started off the caller's path: kept referenced until it ends, awaited at shutdown."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


class BackgroundTasks:
    """asyncio keeps only weak references to tasks: an unreferenced one can vanish mid-run."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def drain(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for what is still running."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)


@contextlib.asynccontextmanager
async def running(work: Coroutine[Any, Any, None], name: str) -> AsyncIterator[asyncio.Task[None]]:
    """A lifespan resource: ``work`` runs as a task while the service runs and is cancelled
    (and awaited) when it stops."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
