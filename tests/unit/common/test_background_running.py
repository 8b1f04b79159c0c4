"""bkn_common.framework.background.running: a lifespan's background task, cancelled and awaited at exit."""

from __future__ import annotations

import asyncio

from bkn_common.framework.background import running


async def test_the_work_runs_inside_and_is_cancelled_and_awaited_at_exit() -> None:
    seen: list[str] = []

    async def work() -> None:
        seen.append("started")
        try:
            await asyncio.sleep(3600)
        finally:
            seen.append("stopped")

    async with running(work(), "probe") as task:
        await asyncio.sleep(0)
        assert task.get_name() == "probe" and seen == ["started"]
    assert task.cancelled() and seen == ["started", "stopped"]
