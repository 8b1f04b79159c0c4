"""Wires trace-recorder: the view (SQLite, PostgreSQL or memory) fed by TRACE + RECEIPTS +
SPANS from its stored offsets, span retention, the event publisher, Redis coordination and the
internal HTTP API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, aclosing, asynccontextmanager
from functools import partial

from aiokafka import TopicPartition
from fastapi import FastAPI

from bkn_common.contracts.topics import projection_topics
from bkn_common.framework.background import running
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
from bkn_common.infra.redis import make_redis, redis_ready
from bkn_common.provenance.keys import KeySet, configured_keyring
from trace_recorder.adapters.redis_coordination import RedisCoordination
from trace_recorder.entrypoints import observability
from trace_recorder.entrypoints.http import install_trace_errors, router
from trace_recorder.entrypoints.provenance_http import provenance_router
from trace_recorder.service_layer.deferred import PendingRecords
from trace_recorder.service_layer.health import Health
from trace_recorder.service_layer.interactions import Lifecycle
from trace_recorder.service_layer.operations import Operations
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.retention import prune_forever
from trace_recorder.service_layer.sealing import NotingProjection, Sealer
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import StoreUnavailable, TraceView
from trace_recorder.settings import TraceRecorderSettings

CONSUMER = "trace-recorder"
FETCH_MAX_BYTES = 8 * 1024 * 1024


def build_app(settings: TraceRecorderSettings) -> FastAPI:
    provider, telemetry = service_telemetry(settings)
    store = open_view(settings)
    broker = make_broker(settings, provider, traced=False)  # its publishes are the trace itself
    redis = make_redis(settings)
    coordination = RedisCoordination(redis, settings.redis_prefix)
    core = Core(store, EventPublisher(broker, settings.topic_prefix), coordination,
                settings.policy())
    pending = PendingRecords(core)
    keyring = configured_keyring(settings.provenance_keys_file)
    sealer = Sealer(core, keyring, window_seconds=settings.seal_window_seconds)
    runner = projection_runner(settings, CONSUMER, projection_topics(CONSUMER), NotingProjection(store, sealer),
                               owns=partial(_owned, settings.replica_index, settings.replica_count),
                               transient=(StoreUnavailable,),
                               fetch_max_wait_ms=settings.fetch_max_wait_ms or settings.kafka_fetch_max_wait_ms,
                               fetch_min_bytes=settings.fetch_min_bytes,
                               # a batch is 5,000 records (~2.5 MB): fetching ahead up to the
                               # runner's default 64 MB is memory the view never needs
                               fetch_max_bytes=FETCH_MAX_BYTES,
                               max_partition_fetch_bytes=FETCH_MAX_BYTES // 4)
    health = Health(coordination, runner, settings.probe_timeout_seconds)

    async def coordination_ready() -> bool:
        return await redis_ready(redis)

    app = make_service_app(
        title="trace-recorder",
        settings=settings,
        resources=[*telemetry, partial(_closing, store), partial(aclosing, redis),
                   partial(running_projection, settings, runner), partial(_pruning, settings, store),
                   partial(connected_broker, broker), partial(_deferring, pending, runner.caught_up),
                   partial(_sealing, sealer, settings.seal_sweep_seconds, runner.caught_up)],
        readiness={"kafka_projection": projection_ready(runner), "kafka_producer": broker_ready(broker),
                   "redis": coordination_ready, "pending_records": _flag(pending.recovered)},
        runners={"kafka_projection": runner},
    )
    install_trace_errors(app)
    app.include_router(state_router(store))
    app.include_router(router(
        Lifecycle(core), Operations(core, pending), store, health,
        capture_enabled=settings.capture_enabled,
        replay_wait_seconds=settings.replay_wait_seconds,
    ))
    app.include_router(observability.router(store))
    app.include_router(provenance_router(store, keyring.public if keyring else KeySet(()), core.clock))
    app.state.store = store
    app.state.sealer = sealer
    app.state.runner = runner
    return app


def open_view(settings: TraceRecorderSettings) -> TraceView:
    """Open (and migrate) the view the settings name; see :class:`TraceRecorderSettings`."""
    if settings.store == "postgresql":
        from trace_recorder.adapters.postgres_view import postgres_view

        password = settings.database_password.get_secret_value() if settings.database_password else None
        return postgres_view(settings.database_url, password, settings.database_schema)
    if settings.store == "sqlite":
        from trace_recorder.adapters.sqlite_view import sqlite_view

        return sqlite_view(settings.sqlite_path)
    return TraceStore()


def _owned(index: int, count: int, tp: TopicPartition) -> bool:
    """Replica ``index`` of ``count`` consumes the partitions p with p % count == index."""
    owned: bool = tp.partition % max(count, 1) == index
    return owned


@asynccontextmanager
async def _closing(store: TraceView) -> AsyncIterator[None]:
    try:
        yield
    finally:
        store.close()


def _pruning(settings: TraceRecorderSettings, store: TraceView) -> AbstractAsyncContextManager[asyncio.Task[None]]:
    return running(prune_forever(store, settings.span_retention_seconds, settings.prune_batch_size,
                                 settings.prune_interval_seconds), "span-retention")


@asynccontextmanager
async def _deferring(pending: PendingRecords, replayed: asyncio.Event) -> AsyncIterator[None]:
    """Deferred pending records: recovered once the view is replayed, swept while running,
    this replica's own published at a clean stop."""
    try:
        async with running(pending.run(replayed), "pending-records"):
            yield
    finally:  # the sweep stopped first, then this replica's own are published, on every stop
        await pending.drain()


def _sealing(
    sealer: Sealer, every_seconds: float, replayed: asyncio.Event
) -> AbstractAsyncContextManager[asyncio.Task[None]]:
    """Finished interactions sealed (service_layer/sealing.py) once the view is replayed."""
    return running(sealer.run(every_seconds, replayed), "sealing")


def _flag(event: asyncio.Event) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return event.is_set()

    return check
