"""BackgroundTasks: spawned work runs to the end and drain waits for it, within its timeout."""

from __future__ import annotations

import asyncio

from bkn_common.framework.background import BackgroundTasks


async def test_drain_waits_for_spawned_work() -> None:
    done: list[int] = []

    async def work(n: int) -> None:
        await asyncio.sleep(0.01)
        done.append(n)

    tasks = BackgroundTasks()
    for n in range(3):
        tasks.spawn(work(n))
    await tasks.drain(timeout=5)
    assert sorted(done) == [0, 1, 2]


async def test_drain_gives_up_after_its_timeout() -> None:
    tasks = BackgroundTasks()
    hanging = tasks.spawn(asyncio.sleep(60))
    await tasks.drain(timeout=0.05)
    assert not hanging.done()
    hanging.cancel()
