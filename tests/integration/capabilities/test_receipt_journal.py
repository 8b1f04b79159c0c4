"""The receipt journal over the real Redis and Kafka: a tool-executor killed mid-call loses no
receipt (recovered with ``outcome_known: false``, the call not sent again), a completed call
leaves no open entry, and the ReceiptJournal contract on the Redis journal.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from redis.asyncio import Redis

from bkn_common.provenance.keys import load_keyring
from bkn_common.provenance.receipts import receipt_problem, receipt_record
from tests.contracts import RealTime, scratch_redis
from tests.contracts.receipt_journal import ReceiptJournalContract
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
from tool_executor.adapters.receipt_journal import RedisReceiptJournal

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
    # signed like any other receipt (with the run folder's receipt key)
    keys = load_keyring(mesh.layout.run_dir / "provenance_keys.json").public
    assert recovered.signature and receipt_problem(receipt_record(recovered), keys) is None
    wait_until(lambda: open_entries(mesh) == 0 or None, timeout=10)
    time.sleep(1)
    assert finance_stats(mesh)["slow_op"] == before + 1  # recovery publishes, it never re-sends


class TestRedisReceiptJournal(RealTime, ReceiptJournalContract):
    """The ReceiptJournal contract (tests/contracts/receipt_journal.py) on the real Redis
    (memory: tests/unit/tool_executor/test_receipt_journal_contract.py)."""

    @pytest.fixture
    async def journal(self, infra: Infra) -> AsyncIterator[RedisReceiptJournal]:
        async with scratch_redis(infra.redis) as (client, prefix):
            yield RedisReceiptJournal(client, prefix)
