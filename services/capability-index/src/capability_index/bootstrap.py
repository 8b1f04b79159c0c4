"""Wires capability-index: projection from Kafka into the index, internal HTTP API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI

from bkn_common.contracts.topics import projection_topics
from bkn_common.framework.projection import ProjectionRunner
from bkn_common.framework.service import (
    make_service_app,
    projection_ready,
    projection_runner,
    running_projection,
    service_telemetry,
    state_router,
)
from capability_index.adapters.embedders import embedder_from_setting
from capability_index.domain.bm25f import load_scoring
from capability_index.domain.tokenizer import warm as warm_tokenizer
from capability_index.entrypoints.http import router
from capability_index.service_layer.projection import CapabilityIndex
from capability_index.settings import CapabilityIndexSettings

CONSUMER = "capability-index"


@asynccontextmanager
async def warmed_once_caught_up(runner: ProjectionRunner) -> AsyncIterator[None]:
    """What a start from a checkpoint did not need before ``/readyz`` and the first ranked
    search does, loaded in a worker thread once caught up: numpy (the scoring) and the
    segmenter (an index restored from a checkpoint tokenized nothing). A search that comes
    first imports or loads it itself (the import lock and the segmenter's lock make it wait
    for a load under way), so answers never depend on whether this has run yet."""

    def warm() -> None:
        load_scoring()
        warm_tokenizer()

    async def warm_when_caught_up() -> None:
        await runner.caught_up.wait()
        await asyncio.to_thread(warm)

    task = asyncio.create_task(warm_when_caught_up(), name="capability-index-warm")
    try:
        yield
    finally:
        task.cancel()


def build_app(settings: CapabilityIndexSettings) -> FastAPI:
    _, telemetry = service_telemetry(settings)
    index = CapabilityIndex(embedder_from_setting(settings.embeddings))
    runner = projection_runner(settings, CONSUMER, projection_topics(CONSUMER), index)
    app = make_service_app(
        title="capability-index",
        settings=settings,
        resources=[*telemetry, partial(running_projection, settings, runner),
                   partial(warmed_once_caught_up, runner)],
        readiness={"kafka_projection": projection_ready(runner)},
        runners={"kafka_projection": runner},
    )
    app.include_router(state_router(index))
    app.include_router(router(index))
    app.state.index = index
    app.state.runner = runner
    return app
