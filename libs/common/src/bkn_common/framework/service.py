"""Service assembly helpers shared by every service's ``bootstrap.py``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI
from opentelemetry.sdk.trace import TracerProvider

from bkn_common.contracts.topics import TopicSpec
from bkn_common.framework.checkpoint import CheckpointFile
from bkn_common.framework.digest import Snapshotting, state_digest
from bkn_common.framework.http import (
    ReadinessCheck,
    TraceContextMiddleware,
    health_router,
    install_error_handlers,
)
from bkn_common.framework.projection import ProjectionRunner
from bkn_common.framework.projection_ports import Projection
from bkn_common.infra.dead_letter_tail import dead_letters_router
from bkn_common.infra.kafka import ensure_topics
from bkn_common.infra.kafka_connection import KafkaConnection
from bkn_common.infra.mesh_auth import verifier_from
from bkn_common.infra.mesh_http import MeshGuard
from bkn_common.infra.metrics import MetricsMiddleware, ServiceMetrics, metrics_router
from bkn_common.infra.settings import CheckpointSettings, ServiceSettings
from bkn_common.infra.span_export import exporting_spans, kafka_span_processor
from bkn_common.infra.telemetry import setup_telemetry

if TYPE_CHECKING:  # FastStream is imported only where a broker is made (see bkn_common.infra.kafka)
    from faststream.kafka import KafkaBroker

Resource = Callable[[], AbstractAsyncContextManager[object]]


def projection_runner(
    settings: ServiceSettings,
    consumer_name: str,
    topics: Sequence[TopicSpec],
    projection: Projection,
    **options: Any,
) -> ProjectionRunner:
    """The service's runner; checkpointed when its settings name a checkpoint folder.
    ``options``: :class:`ProjectionRunner`'s ``owns``, ``transient``, ``batch_size``, and
    ``fetch_max_wait_ms`` / ``fetch_min_bytes`` where a service chooses its own."""
    checkpoints = None
    if isinstance(settings, CheckpointSettings) and settings.checkpoint_dir:
        checkpoints = CheckpointFile(
            settings.checkpoint_dir, consumer_name, settings.checkpoint_interval_seconds
        )
    return ProjectionRunner(
        bootstrap_servers=KafkaConnection.from_settings(settings),
        consumer_name=consumer_name,
        topics=topics,
        projection=projection,
        topic_prefix=settings.topic_prefix,
        **{"fetch_max_wait_ms": settings.kafka_fetch_max_wait_ms, **options},
        checkpoints=checkpoints,
    )


@asynccontextmanager
async def running_projection(
    settings: ServiceSettings, runner: ProjectionRunner
) -> AsyncIterator[ProjectionRunner]:
    """Provision topics, start the runner, stop it on exit (retrying while Kafka starts)."""
    for attempt in range(30):
        try:
            await ensure_topics(KafkaConnection.from_settings(settings), settings.topic_prefix)
            await runner.start()
            break
        except Exception:
            if attempt == 29:
                raise
            await runner.stop()
            await asyncio.sleep(1)
    try:
        yield runner
    finally:
        await runner.stop()


def projection_ready(runner: ProjectionRunner) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return runner.running and runner.caught_up.is_set()

    return check


def service_telemetry(settings: ServiceSettings) -> tuple[TracerProvider, list[Resource]]:
    """The tracer provider (OTLP when configured) and, unless disabled, span export to Kafka."""
    if not settings.span_export_to_kafka or settings.otel_sdk_disabled:
        return setup_telemetry(settings), []
    processor, exporter = kafka_span_processor(settings)
    return setup_telemetry(settings, [processor]), [partial(exporting_spans, settings, exporter)]


def make_service_app(
    *,
    title: str,
    settings: ServiceSettings,
    resources: Sequence[Resource],
    readiness: Mapping[str, ReadinessCheck],
    edge: bool = False,
    runners: Mapping[str, ProjectionRunner] | None = None,
    metrics: ServiceMetrics | None = None,
) -> FastAPI:
    """A FastAPI app with the envelope, health probes, ``/metrics`` and the given resources in
    its lifespan.

    ``edge``: the app faces callers outside the mesh (the gateway), whose baggage and internal
    headers are not trusted. Every ``/internal/`` route needs a mesh signature
    (``bkn_common.infra.mesh_auth``); without ``MESH_INTERNAL_SECRET`` the service refuses to start.
    ``runners``: projections whose progress ``/readyz`` reports (offsets done / total,
    checkpoint) and whose lag, caught-up state and dead letters ``/metrics`` reports.
    ``metrics``: the service's registry when it records more than requests (tool calls, gauges).
    """
    verifier = verifier_from(settings)
    metrics = metrics if metrics is not None else ServiceMetrics()
    for runner in (runners or {}).values():
        metrics.watch_projection(runner)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for resource in resources:
                await stack.enter_async_context(resource())
            yield

    # FastAPI's own telemetry is off: TraceContextMiddleware is the one SERVER span per request
    # (FastAPI's would add a second server span plus spans per dependency and endpoint, all
    # exported through Kafka and stored by trace-recorder, for no extra information)
    app = FastAPI(
        title=title, lifespan=lifespan, docs_url=None, redoc_url=None,
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.add_middleware(MeshGuard, verifier=verifier, edge=edge)  # inside the request id
    install_error_handlers(app)
    app.add_middleware(TraceContextMiddleware, service_name=title, edge=edge)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.include_router(health_router(
        readiness, {name: runner.progress for name, runner in (runners or {}).items()}
    ))
    app.include_router(metrics_router(metrics))
    if runners:
        app.include_router(dead_letters_router(settings, runners))
    app.state.metrics = metrics
    return app


def state_router(store: Snapshotting) -> APIRouter:
    """``/internal/v1/state/digest`` and ``/state/snapshot?section=`` for `clctl replay --verify`."""
    router = APIRouter(prefix="/internal/v1/state")

    @router.get("/digest")
    async def digest() -> dict[str, Any]:
        return state_digest(store.snapshot())

    @router.get("/snapshot")
    async def snapshot(section: str) -> Any:
        return store.snapshot().get(section)

    return router


@asynccontextmanager
async def connected_broker(broker: KafkaBroker) -> AsyncIterator[KafkaBroker]:
    """Lifespan resource: the service's producer, connected while it runs."""
    await broker.connect()
    try:
        yield broker
    finally:
        await broker.stop()


BROKER_PING_FRESH_SECONDS = 1.0


def broker_ready(broker: KafkaBroker, fresh_for: float = BROKER_PING_FRESH_SECONDS) -> ReadinessCheck:
    """The producer's broker answers. A ping fetches the metadata of every topic of the cluster
    (about 20 ms of CPU with 2,500 topics), so a success is reused for ``fresh_for`` seconds:
    probes polled every 50 ms (devmesh, benchmarks) took a fifth of a folding service's CPU.
    A failure is never reused."""
    last_ok = [-fresh_for]

    async def check() -> bool:
        if time.monotonic() - last_ok[0] < fresh_for:
            return True
        ok = bool(await broker.ping(timeout=2))
        if ok:
            last_ok[0] = time.monotonic()
        return ok

    return check
