"""Integration rig: the trace-recorder app in-process against the REAL Kafka and Redis.

Each test module gets its own topic prefix, Redis key prefix (deleted afterwards) and SQLite
view file (the service's default store; ``view`` overrides it). The app runs through its own
lifespan (projection runner, producer, Redis client) and is reached with httpx over ASGI.
When Kafka or Redis is not reachable, every test here is skipped. Test modules cannot import
this file (importlib mode), so everything comes through ``env``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from fastapi import FastAPI
from redis.asyncio import Redis

from bkn_common.contracts.events import Event, encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import ALL_TOPICS, projection_topics, topic_for_event
from bkn_common.framework.projection import ProjectionRunner
from bkn_common.infra.kafka import ensure_topics
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.mesh_client import MeshAuth
from trace_recorder.bootstrap import CONSUMER, build_app
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import TraceView
from trace_recorder.settings import TraceRecorderSettings

INFRA = TraceRecorderSettings()
SECRET = "integration-test-mesh-secret-0123"
TOPICS = projection_topics(CONSUMER)


async def _unreachable() -> str | None:
    redis = Redis.from_url(INFRA.redis_url, socket_connect_timeout=2)
    try:
        await redis.ping()
    except Exception as exc:
        return f"Redis at {INFRA.redis_url} is not reachable ({type(exc).__name__})"
    finally:
        await redis.aclose()
    admin = AIOKafkaAdminClient(bootstrap_servers=INFRA.kafka_bootstrap_servers,
                                request_timeout_ms=3000)
    try:
        await asyncio.wait_for(admin.start(), 5)
    except Exception as exc:
        return (f"Kafka at {INFRA.kafka_bootstrap_servers} is not reachable "
                f"({type(exc).__name__}); run scripts/kafka.sh start")
    await admin.close()
    return None


async def eventually(condition: Callable[[], bool], within: float = 15) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@dataclass
class Running:
    """One running app instance and an HTTP client for it."""

    app: FastAPI
    client: httpx.AsyncClient

    @property
    def store(self) -> TraceView:
        store: TraceView = self.app.state.store
        return store

    @property
    def runner(self) -> ProjectionRunner:
        runner: ProjectionRunner = self.app.state.runner
        return runner

    async def call(self, path: str, body: dict[str, Any], account: str = "alice",
                   language: str = "en-US") -> httpx.Response:
        return await self.client.post(f"/internal/v1/{path}", json=body, headers={
            "X-BKN-Account": account, "Accept-Language": language})

    async def post(self, path: str, body: dict[str, Any], account: str = "alice") -> dict[str, Any]:
        response = await self.call(path, body, account)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    async def refused(self, path: str, body: dict[str, Any], code: str, status: int,
                      account: str = "alice") -> dict[str, Any]:
        response = await self.call(path, body, account)
        assert (response.status_code, response.json().get("code")) == (status, code), response.text
        result: dict[str, Any] = response.json()
        return result

    async def get(self, path: str) -> dict[str, Any]:
        response = await self.client.get(f"/internal/v1/{path}")
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result

    async def start(self, account: str = "alice", **kw: Any) -> dict[str, Any]:
        body = {"question": "How many orders shipped?", "agent_name": "agent",
                "conversation_mode": "new", **kw}
        return await self.post("interactions/start", body, account)

    async def consumed(self, ends: dict[TopicPartition, int], within: float = 30) -> None:
        """Wait until this app's projection has read the log up to ``ends``."""
        await eventually(lambda: all(self.runner.positions.get(tp, 0) >= end
                                     for tp, end in ends.items()), within)


@dataclass
class Env:
    """One module's isolated slice of the broker and of Redis, and the tools to use it."""

    topic_prefix: str
    redis_prefix: str
    producer: AIOKafkaProducer
    view: dict[str, Any] = field(default_factory=dict)
    """Settings of the view (store, sqlite_path or database_url...)."""

    def settings(self, **overrides: Any) -> TraceRecorderSettings:
        # the app's own spans stay off the spans topic, so the log is exactly what tests write
        overrides.setdefault("mesh_internal_secret", SECRET)
        return TraceRecorderSettings(topic_prefix=self.topic_prefix,
                                     redis_prefix=self.redis_prefix,
                                     span_export_to_kafka=False, **{**self.view, **overrides})

    @asynccontextmanager
    async def running(self, **overrides: Any) -> AsyncIterator[Running]:
        """The app through its lifespan; yielded once its projection replayed the log."""
        app = build_app(self.settings(**overrides))
        async with app.router.lifespan_context(app):
            await asyncio.wait_for(app.state.runner.caught_up.wait(), 60)
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://trace.test",
                                         timeout=30, auth=MeshAuth(MeshSigner(SECRET, "gateway"))) as client:
                yield Running(app, client)

    async def publish(self, events: Sequence[Event]) -> None:
        """Publish as another service would (tool-executor receipts, span exporters)."""
        futures = [
            await self.producer.send(topic_for_event(e).full_name(self.topic_prefix),
                                     encode_event(e), key=event_key(e))
            for e in events
        ]
        await asyncio.gather(*futures)

    async def end_offsets(self) -> dict[TopicPartition, int]:
        consumer = AIOKafkaConsumer(bootstrap_servers=INFRA.kafka_bootstrap_servers)
        await consumer.start()
        try:
            names = [t.full_name(self.topic_prefix) for t in TOPICS]
            await consumer.topics()
            partitions = [TopicPartition(n, p) for n in names
                          for p in consumer.partitions_for_topic(n) or ()]
            ends: dict[TopicPartition, int] = await consumer.end_offsets(partitions)
            return ends
        finally:
            await consumer.stop()

    async def rebuild(self) -> TraceStore:
        """Replay TRACE + RECEIPTS + SPANS from offset zero into a fresh store."""
        store = TraceStore()
        runner = ProjectionRunner(bootstrap_servers=INFRA.kafka_bootstrap_servers,
                                  consumer_name=CONSUMER, topics=TOPICS, projection=store,
                                  topic_prefix=self.topic_prefix)
        await runner.start()
        try:
            await asyncio.wait_for(runner.caught_up.wait(), 120)
        finally:
            await runner.stop()
        return store

    async def drop(self) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=INFRA.kafka_bootstrap_servers)
        await admin.start()
        try:
            await admin.delete_topics([s.full_name(self.topic_prefix) for s in ALL_TOPICS])
        except Exception:  # best effort: the prefix is unique anyway
            pass
        finally:
            await admin.close()
        redis = Redis.from_url(INFRA.redis_url)
        try:
            keys = [k async for k in redis.scan_iter(match=f"{self.redis_prefix}*")]
            if keys:
                await redis.delete(*keys)
        finally:
            await redis.aclose()


@pytest.fixture(scope="session")
async def infra() -> None:
    reason = await _unreachable()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
async def env(infra: None, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Env]:
    tag = uuid.uuid4().hex[:10]
    view_file: Path = tmp_path_factory.mktemp("trace-view") / "view.sqlite3"
    prefix = f"it-trace-{tag}."
    await ensure_topics(INFRA.kafka_bootstrap_servers, prefix)
    producer = AIOKafkaProducer(bootstrap_servers=INFRA.kafka_bootstrap_servers, acks="all",
                                enable_idempotence=True, linger_ms=5)
    await producer.start()
    environment = Env(prefix, f"it:trace:{tag}:", producer,
                      view={"store": "sqlite", "sqlite_path": view_file})
    try:
        yield environment
    finally:
        await producer.stop()
        await environment.drop()


@pytest.fixture(scope="module")
def wait_for() -> Callable[..., Any]:
    return eventually
