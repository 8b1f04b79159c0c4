"""The receipt journal over the real Redis and Kafka: a tool-executor killed mid-call loses no
receipt (recovered with ``outcome_known: false``, the call not sent again), a completed call
leaves no open entry, and the Redis journal itself (open / overdue / lease / settle / close).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from redis.asyncio import Redis

from bkn_common import events as ev
from tests.integration.capabilities.helpers import (
    FX,
    FX_ARGS,
    execute,
    finance_stats,
    ok,
    start_interaction,
    wait_receipt,
    wait_until,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh
from tool_executor.adapters.receipt_journal import ReceiptJournal

GRACE_SECONDS = 1.0  # recovered 1 s after the tool's own timeout (box_finance: 5 s)


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"TOOL_EXECUTOR_RECEIPT_RECOVERY_GRACE_SECONDS": str(GRACE_SECONDS),
           "TOOL_EXECUTOR_RECEIPT_SWEEP_SECONDS": "0.5"}
    with running_mesh(infra, tmp_path_factory.mktemp("receipt_journal"), extra_env=env) as running:
        yield running


def open_entries(mesh: RunningMesh) -> int:
    async def count() -> int:
        redis = Redis.from_url(mesh.layout.redis)
        try:
            return int(await redis.zcard(f"bkn:{mesh.layout.topic_prefix}tool-executor:receipts-open"))
        finally:
            await redis.aclose()

    return asyncio.run(count())


def test_tool_executor_readiness_includes_its_journal_store(mesh: RunningMesh) -> None:
    ready = httpx.get(mesh.url("tool_executor") + "/readyz", timeout=10)
    assert ready.status_code == 200 and ready.json()["checks"]["redis"] is True


def test_a_completed_call_leaves_no_open_journal_entry(mesh: RunningMesh) -> None:
    response = execute(mesh, start_interaction(mesh), *FX, FX_ARGS)
    ok(response)
    receipt_id = response.headers["bkn-receipt-id"]
    assert wait_receipt(mesh, lambda r: r.receipt_id == receipt_id).outcome_known
    wait_until(lambda: open_entries(mesh) == 0 or None, timeout=10)


def test_an_executor_killed_mid_call_loses_no_receipt_and_sends_nothing_twice(
    mesh: RunningMesh,
) -> None:
    context = start_interaction(mesh)
    before = finance_stats(mesh)["slow_op"]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        call = pool.submit(execute, mesh, context, "box_finance", "tool_slow_op", {"seconds": 4})
        wait_until(lambda: finance_stats(mesh)["slow_op"] == before + 1 or None, timeout=30)
        pid = int((mesh.layout.run_dir / "pids" / "tool-executor.pid").read_text())
        os.killpg(pid, signal.SIGKILL)  # mid-call: the upstream is still sleeping
        assert call.result(timeout=60).status_code >= 500
    mesh.stop("tool-executor")  # reaps the pid file
    mesh.start("tool-executor")

    recovered = wait_receipt(
        mesh, lambda r: r.interaction_id == context["interaction_id"] and r.tool_id == "tool_slow_op",
        timeout=60,
    )
    assert recovered.outcome_known is False
    assert (recovered.outcome, recovered.status_code, recovered.latency_ms) == ("upstream_error", None, 0.0)
    assert recovered.operation_id is not None and recovered.caller == "dev"
    wait_until(lambda: open_entries(mesh) == 0 or None, timeout=10)
    time.sleep(1)
    assert finance_stats(mesh)["slow_op"] == before + 1  # recovery publishes, it never re-sends


def _receipt(rid: str, *, known: bool) -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id=rid, kn_id="kn", owner_id="box", tool_id="tool", capability_type="function",
        caller="alice", proxy_id="px", arguments_hash="ah",
        outcome="succeeded" if known else "upstream_error", latency_ms=1.0,
        executed_at=datetime.now(UTC), outcome_known=known,
    )


async def test_the_redis_journal_keeps_leases_and_the_settled_receipt(infra: Infra) -> None:
    redis = Redis.from_url(infra.redis)
    journal = ReceiptJournal(redis, f"bkn:test-{uuid.uuid4().hex[:8]}:")
    try:
        await journal.open(_receipt("due", known=False), deadline=100.0)
        await journal.open(_receipt("later", known=False), deadline=10_000.0)
        assert await journal.overdue(now=200.0, limit=10) == ["due"]
        await journal.settle(_receipt("due", known=True))
        settled = await journal.read("due")
        assert settled is not None and settled.outcome_known and settled.outcome == "succeeded"
        assert await journal.claim("due", seconds=5) is True
        assert await journal.claim("due", seconds=5) is False  # another replica
        await journal.close("due")
        assert await journal.read("due") is None
        assert await journal.overdue(now=20_000.0, limit=10) == ["later"]
        await journal.settle(_receipt("never-opened", known=True))  # settle never creates
        assert await journal.read("never-opened") is None
        await journal.close("later")
    finally:
        await redis.aclose()
