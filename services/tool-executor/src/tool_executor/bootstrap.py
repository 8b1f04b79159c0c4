"""Wires tool-executor: the factory's records from Kafka, the receipt publisher, the API."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import aclosing, asynccontextmanager
from dataclasses import replace
from functools import partial

from fastapi import FastAPI

from bkn_common.contracts.topics import projection_topics
from bkn_common.framework.service import (
    broker_ready,
    connected_broker,
    make_service_app,
    projection_ready,
    projection_runner,
    running_projection,
    service_telemetry,
    state_router,
)
from bkn_common.infra.kafka import EventPublisher, make_broker
from bkn_common.infra.metrics import ServiceMetrics
from bkn_common.infra.redis import make_redis, redis_ready
from bkn_common.provenance.keys import configured_keyring
from tool_executor.adapters.action_ledger import RedisActionLedger
from tool_executor.adapters.bwrap_sandbox import BwrapSandbox
from tool_executor.adapters.mcp_client import McpClient
from tool_executor.adapters.openapi_client import OpenApiClient
from tool_executor.adapters.receipt_journal import RedisReceiptJournal
from tool_executor.adapters.sandbox import ProcessSandbox
from tool_executor.domain.sandbox import SandboxLimits
from tool_executor.entrypoints.actions_consumer import CONSUMER_NAME, ActionConsumer
from tool_executor.entrypoints.check_sandbox import check_sandbox
from tool_executor.entrypoints.http import router
from tool_executor.service_layer.actions import ActionRunner
from tool_executor.service_layer.execution import ToolExecutor
from tool_executor.service_layer.projection import FactoryState
from tool_executor.service_layer.receipt_recovery import ReceiptRecovery
from tool_executor.service_layer.receipt_signing import SigningReceiptSink
from tool_executor.service_layer.sandbox import Sandbox
from tool_executor.service_layer.skills import SkillService
from tool_executor.settings import ToolExecutorSettings

CONSUMER = "tool-executor"

log = logging.getLogger(__name__)


def make_sandbox(settings: ToolExecutorSettings) -> Sandbox:
    """The configured sandbox, checked now: a bwrap sandbox that cannot start stops the service
    (SandboxUnavailable) instead of running payloads unsandboxed."""
    python = settings.sandbox_python or sys.executable
    if settings.sandbox == "process":
        log.warning("TOOL_EXECUTOR_SANDBOX=process: function tools and skills run in a plain "
                    "child process; the kernel does not isolate them")
        return ProcessSandbox(python, settings.sandbox_max_concurrent)
    sandbox = BwrapSandbox(settings.sandbox_bwrap_path, python,
                           max_concurrent=settings.sandbox_max_concurrent,
                           uid_base=settings.sandbox_uid_base,
                           check_timeout_seconds=settings.sandbox_check_timeout_seconds,
                           seccomp=settings.sandbox_seccomp)
    sandbox.check()
    return sandbox


def sandbox_limits(settings: ToolExecutorSettings) -> tuple[SandboxLimits, SandboxLimits]:
    """(the base of every function tool's limits, the limits of skills)."""
    base = SandboxLimits(max_output_chars=settings.max_output_chars,
                         max_processes=settings.sandbox_max_processes,
                         max_output_bytes=settings.sandbox_max_output_bytes,
                         scratch_mb=settings.sandbox_scratch_mb)
    return base, replace(base, cpu_seconds=settings.skill_cpu_seconds,
                         memory_mb=settings.skill_memory_mb, wall_seconds=settings.skill_wall_seconds)


def check_sandbox_command(settings: ToolExecutorSettings) -> int:
    """``python -m tool_executor check-sandbox``: the preflight on the configured sandbox."""
    function_limits, _ = sandbox_limits(settings)
    return check_sandbox(settings.sandbox, partial(make_sandbox, settings), function_limits)


def build_app(settings: ToolExecutorSettings) -> FastAPI:
    sandbox = make_sandbox(settings)
    function_limits, skill_limits = sandbox_limits(settings)
    provider, telemetry = service_telemetry(settings)
    state = FactoryState()
    broker = make_broker(settings, provider)
    http = OpenApiClient(settings.max_response_bytes, settings.upstream_keepalive_seconds)
    publisher = EventPublisher(broker, settings.topic_prefix)
    redis = make_redis(settings)
    redis_prefix = f"bkn:{settings.topic_prefix}tool-executor:"
    journal = RedisReceiptJournal(redis, redis_prefix)
    receipts = SigningReceiptSink(publisher, configured_keyring(settings.provenance_keys_file))
    executor = ToolExecutor(state, receipts, journal, http, McpClient(), sandbox, function_limits,
                            settings.receipt_recovery_grace_seconds)
    recovery = ReceiptRecovery(journal, receipts)
    runner = projection_runner(settings, CONSUMER, projection_topics(CONSUMER), state)
    ledger = RedisActionLedger(redis, redis_prefix)
    actions = ActionConsumer(settings, ActionRunner(executor, publisher, ledger), runner.caught_up)

    @asynccontextmanager
    async def receipts_recovered() -> AsyncIterator[None]:
        async with recovery.running(settings.receipt_sweep_seconds):
            try:
                yield
            finally:
                await executor.drain()

    @asynccontextmanager
    async def action_consumer() -> AsyncIterator[None]:
        await actions.start()
        try:
            yield
        finally:
            await actions.stop()

    async def actions_ready() -> bool:
        return actions.running

    metrics = ServiceMetrics()
    metrics.watch_dead_letters(f"{CONSUMER_NAME}-actions", lambda: actions.dead_lettered)
    metrics.gauge_on_scrape(
        "bkn_receipt_journal_open_entries",
        "Provisional receipts journaled in Redis and not yet acknowledged by Kafka.",
        journal.open_count,
    )
    app = make_service_app(
        title="tool-executor",
        settings=settings,
        resources=[*telemetry, partial(aclosing, http), partial(aclosing, redis),
                   partial(running_projection, settings, runner), partial(connected_broker, broker),
                   receipts_recovered, action_consumer],
        readiness={"kafka_projection": projection_ready(runner), "kafka_producer": broker_ready(broker),
                   "action_consumer": actions_ready, "redis": partial(redis_ready, redis)},
        runners={"kafka_projection": runner},
        metrics=metrics,
    )
    app.include_router(state_router(state))
    app.include_router(router(executor, SkillService(state, sandbox, skill_limits)))
    app.state.factory = state
    return app
