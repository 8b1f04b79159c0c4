"""Poison records go to the dead-letter topic; restarts and replays give the same answers."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import devmesh
import httpx
import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from bkn_common.contracts import events as ev
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import LIFECYCLE, dead_letter_topic
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, mesh_auth, running_mesh


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("discipline")) as running:
        yield running


def refs(mesh: RunningMesh, body: dict[str, object]) -> list[tuple[str, str | None, str]]:
    response = mesh.call("search_capabilities", {"kn_id": "supply_chain", **body})
    assert response.status_code == 200, response.text
    return [(c["capability_type"], c.get("owner_id"), c["capability_id"]) for c in response.json()["capabilities"]]


def wait_until(predicate, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


async def _produce(mesh: RunningMesh, topic: str, records: list[tuple[bytes, bytes]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=mesh.layout.kafka, acks="all", enable_idempotence=True)
    await producer.start()
    try:
        for key, value in records:
            await producer.send_and_wait(topic, value=value, key=key)
    finally:
        await producer.stop()


async def _read_all(mesh: RunningMesh, topic: str) -> list[tuple[bytes, dict[str, bytes]]]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=mesh.layout.kafka, auto_offset_reset="earliest",
                                enable_auto_commit=False)
    await consumer.start()
    try:
        batches = await consumer.getmany(timeout_ms=3000)
        return [(r.value, dict(r.headers)) for records in batches.values() for r in records]
    finally:
        await consumer.stop()


def test_poison_records_are_dead_lettered_and_the_consumer_goes_on(mesh: RunningMesh) -> None:
    lifecycle = LIFECYCLE.full_name(mesh.layout.topic_prefix)
    fx = ("function", "box_finance", "tool_fx_convert")
    assert fx in refs(mesh, {})
    disable = ev.ToolStateChanged(owner_id="box_finance", tool_id="tool_fx_convert", enabled=False)
    unknown_type = json.dumps({"type": "lifecycle.nonsense", "schema_version": 1, "event_id": "x",
                               "occurred_at": "2026-01-01T00:00:00+00:00", "data": {}}).encode()
    invalid = json.dumps({"type": "lifecycle.tool_state.changed", "schema_version": 1, "event_id": "y",
                          "occurred_at": "2026-01-01T00:00:00+00:00", "data": {"owner_id": 1}}).encode()
    asyncio.run(_produce(mesh, lifecycle, [
        (b"tool:x", b"{not json"), (b"tool:y", unknown_type), (b"tool:z", invalid),
        (event_key(disable), ev.encode_event(disable)),
    ]))
    wait_until(lambda: fx not in refs(mesh, {}))
    dlq = dead_letter_topic("capability-index").full_name(mesh.layout.topic_prefix)
    dead = asyncio.run(_read_all(mesh, dlq))
    reasons = {value: headers["dlq.reason"].decode() for value, headers in dead}
    assert "invalid JSON" in reasons[b"{not json"]
    assert "unknown event type" in reasons[unknown_type]
    assert "failed validation" in reasons[invalid]
    assert all(h["dlq.topic"].decode() == lifecycle for _, h in dead)


def test_restarted_capability_index_gives_the_same_answer(mesh: RunningMesh) -> None:
    queries: list[dict[str, object]] = [{}, {"query": "汇率"}, {"query": "shipment tracking"}, {"types": ["skill"]}]
    before = [refs(mesh, q) for q in queries]
    mesh.restart("capability-index")
    assert [refs(mesh, q) for q in queries] == before


def test_a_fresh_store_replaying_from_offset_zero_equals_the_live_one(mesh: RunningMesh, tmp_path: Path) -> None:
    port = mesh.layout.port(30)
    env = {**mesh.layout.env(), "CAPABILITY_INDEX_PORT": str(port)}
    log = (tmp_path / "fresh.log").open("wb")
    fresh = subprocess.Popen([str(devmesh.BIN / "python"), "-m", "capability_index"], env=env,
                             stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _ready(port), timeout=60)
        auth = mesh_auth(mesh.layout.mesh_secret)
        with mesh.internal("capability_index") as live, \
                httpx.Client(base_url=f"http://127.0.0.1:{port}", auth=auth, timeout=10) as fresh_api:
            for body in ({"kn_id": "supply_chain"}, {"kn_id": "supply_chain", "query": "结算 订单"},
                         {"kn_id": "supply_chain", "metadata_types": ["openapi"]}):
                a = live.post("/internal/v1/search", json=body).json()
                b = fresh_api.post("/internal/v1/search", json=body).json()
                assert a == b
            stats_live = live.get("/internal/v1/stats").json()
            stats_fresh = fresh_api.get("/internal/v1/stats").json()
        assert stats_live == stats_fresh
    finally:
        fresh.terminate()
        fresh.wait(timeout=15)
        log.close()


def _ready(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


