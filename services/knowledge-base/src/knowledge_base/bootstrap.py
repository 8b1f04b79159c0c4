"""Wires knowledge-base: bases from Kafka, search indexes, vectors, the internal read API."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from fastapi import APIRouter, FastAPI

from bkn_common.contracts import events as ev
from bkn_common.contracts.topics import projection_topics
from bkn_common.framework import heap
from bkn_common.framework.background import running
from bkn_common.framework.service import (
    make_service_app,
    projection_ready,
    projection_runner,
    running_projection,
    service_telemetry,
    state_router,
)
from bkn_common.infra.redis import make_redis, redis_ready
from knowledge_base.adapters.blas import limit_blas_threads
from knowledge_base.adapters.embedder import EmbeddingsUnavailable, encoder_from_setting
from knowledge_base.adapters.redis_store import RedisCursorStore, RedisRateLimiter
from knowledge_base.adapters.vector_checkpoint import VectorCheckpoint
from knowledge_base.entrypoints import http
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.searching import Searcher
from knowledge_base.service_layer.vectors import VectorStore
from knowledge_base.settings import KnowledgeBaseSettings

log = logging.getLogger(__name__)
CONSUMER = "knowledge-base"


class NotifyingState(KnowledgeState):
    """The projection, waking the indexer after every change."""

    def __init__(self) -> None:
        super().__init__()
        self.indexes: Indexes | None = None

    def apply(self, record: ev.EventRecord) -> None:
        super().apply(record)
        if self.indexes is not None:
            self.indexes.wake()


def settle_heap() -> None:
    """After an index build: collect, then move every live object out of the collector's view
    (``gc.freeze``). A 10,000-file base is some 250,000 long-lived objects (the files, the
    views, the indexes); without this each full collection walked them all, 100-300 ms with the
    event loop stopped, which was the search's p99. Unfreezing first lets the collection see
    what the previous build left behind, so nothing frozen leaks across builds. Then the pages
    freed (the previous view and index, the build's transient lists) go back to the system."""
    heap.settle(unfreeze=True)
    heap.release()


def _vectors(settings: KnowledgeBaseSettings) -> tuple[VectorStore | None, str | None]:
    try:
        encoder = encoder_from_setting(settings.embeddings)
    except EmbeddingsUnavailable as exc:
        log.error("content vectors off: %s", exc)
        return None, "EMBEDDINGS_LOAD_FAILED"
    if encoder is None:
        return None, "EMBEDDINGS_DISABLED"
    return VectorStore(encoder, encoder.name, settings.embedding_batch), None


def build_app(settings: KnowledgeBaseSettings) -> FastAPI:
    _, telemetry = service_telemetry(settings)
    limit_blas_threads(settings.blas_threads)
    state = NotifyingState()
    runner = projection_runner(settings, CONSUMER, projection_topics(CONSUMER), state)
    vectors, off_reason = _vectors(settings)
    checkpoint = (VectorCheckpoint(settings.checkpoint_dir, vectors.name)
                  if vectors is not None and settings.checkpoint_dir else None)

    def save(bases: dict[str, set[str]]) -> None:
        if checkpoint is not None and vectors is not None:
            positions = {f"{tp.topic}:{tp.partition}": o for tp, o in runner.positions.items()}
            checkpoint.save(dict(vectors.vectors), positions, bases)

    indexes = Indexes(state, vectors, settings.chunk_chars, save if checkpoint else None,
                      settings.checkpoint_interval_seconds, settle_heap, heap.release)
    state.indexes = indexes
    redis = make_redis(settings)
    searcher = Searcher(state, indexes, RedisCursorStore(redis, settings.key_prefix()),
                        settings.search_deadline_seconds, settings.excerpt_chars,
                        settings.search_cursor_ttl_seconds, off_reason)
    limiter = RedisRateLimiter(redis, settings.key_prefix(), settings.rate_limit_per_second,
                               settings.rate_limit_burst)

    @asynccontextmanager
    async def indexing() -> AsyncIterator[None]:
        if checkpoint is not None and vectors is not None:
            loaded, bases = await asyncio.to_thread(checkpoint.load)
            vectors.load(loaded)
            indexes.carry(bases)
        try:
            async with running(indexes.run(runner.caught_up), "knowledge-base-indexer"):
                yield
        finally:
            await asyncio.to_thread(indexes.save)
            await redis.aclose()

    async def redis_check() -> bool:
        return await redis_ready(redis)

    app = make_service_app(
        title="knowledge-base",
        settings=settings,
        resources=[*telemetry, indexing, partial(running_projection, settings, runner)],
        readiness={"kafka_projection": projection_ready(runner), "redis": redis_check},
        runners={"kafka_projection": runner},
    )
    app.include_router(state_router(state))
    app.include_router(http.router(state, searcher, http.reader_dependency(settings, limiter)))
    app.include_router(_stats_router(state, indexes, searcher))
    app.state.knowledge = state
    app.state.runner = runner
    return app


def _stats_router(state: KnowledgeState, indexes: Indexes, searcher: Searcher) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.get("/stats")
    async def stats() -> dict[str, Any]:
        vectors = indexes.vectors
        return {
            "bases": {k: {"revision": b.revision, "files": len(b.manifest)}
                      for k, b in state.bases.items() if b.applied},
            "settled": indexes.settled(),
            "vectors": None if vectors is None else {
                "stored": len(vectors.vectors), "pending": vectors.pending, "encoderLoaded": vectors.loaded,
                "embeddedSinceStart": vectors.embedded, "checkpointed": indexes.checkpointed,
                "laneBatches": searcher.vector_lane(vectors).batches,
                "laneSearches": searcher.vector_lane(vectors).searches},
        }

    return api
