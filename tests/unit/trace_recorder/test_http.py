"""The internal HTTP API over the in-memory ports: translation, envelope, language, probe."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from bkn_common.framework.service import make_service_app, state_router
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.mesh_client import MeshAuth
from bkn_common.infra.settings import ServiceSettings
from trace_recorder.entrypoints.http import install_trace_errors, router
from trace_recorder.service_layer.health import Health

ALICE = {"X-BKN-Account": "alice"}
SECRET = "unit-test-mesh-secret-0123456789"


class Projection:
    def __init__(self) -> None:
        self.caught_up = asyncio.Event()
        self.caught_up.set()
        self.running = True


@pytest.fixture
def projection() -> Projection:
    return Projection()


@pytest.fixture
async def client(rig, projection) -> AsyncIterator[httpx.AsyncClient]:
    settings = ServiceSettings(mesh_internal_secret=SECRET)
    app = make_service_app(title="trace-recorder", settings=settings, resources=[], readiness={})
    install_trace_errors(app)
    health = Health(rig.coordination, projection)
    app.include_router(state_router(rig.store))
    app.include_router(router(rig.lifecycle, rig.operations, rig.store, health,
                              capture_enabled=True, replay_wait_seconds=0.05))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://trace.test",
                                 auth=MeshAuth(MeshSigner(SECRET, "gateway"))) as c:
        yield c


async def start(client: httpx.AsyncClient, **kw) -> dict:
    body = {"question": "How many?", "agent_name": "agent", "conversation_mode": "new", **kw}
    response = await client.post("/internal/v1/interactions/start", json=body, headers=ALICE)
    assert response.status_code == 200, response.text
    return response.json()


async def test_probe(client, rig, projection) -> None:
    response = await client.get("/internal/v1/probe")
    assert response.json() == {"available": True, "capture_enabled": True}
    rig.coordination.available = False
    response = await client.get("/internal/v1/probe", headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 503
    assert response.json()["code"] == "trace_core_unavailable"
    assert "Trace Core 暂不可用" in response.json()["message"]
    rig.coordination.available = True
    projection.caught_up.clear()
    assert (await client.get("/internal/v1/probe")).status_code == 503


async def test_a_full_turn_over_http(client, rig) -> None:
    started = await start(client)
    ids = {k: started[k] for k in ("conversation_id", "interaction_id")}
    begun = (await client.post("/internal/v1/operations/begin", headers=ALICE, json={
        **ids, "tool_name": "search_schema", "input_hash": "h", "correlation": "req-1"})).json()
    assert begun["status"] == "new"
    done = await client.post("/internal/v1/operations/complete", headers=ALICE, json={
        "operation_id": begun["operation_id"], "receipt_status": "completed",
        "result": {"ok": True}, "evidence": [{"evidence_type": "retrieval",
                                               "attributes": {"query_hash": "q"},
                                               "source_refs": ["object_instance:k:o:1"]}]})
    assert done.json()["evidence_durability"] == "durable"
    finished = (await client.post("/internal/v1/interactions/finish", headers=ALICE, json={
        **ids, "outcome": "completed", "answer": "42"})).json()
    assert (finished["execution_status"], finished["evidence_status"], finished["operations"]) == (
        "succeeded", "complete", 1)
    view = (await client.get(f"/internal/v1/interactions/{ids['interaction_id']}")).json()
    assert view["operations"][0]["evidence"][0]["source_refs"] == ["object_instance:k:o:1"]
    assert "result" not in view["operations"][0]
    conversation = (await client.get(f"/internal/v1/conversations/{ids['conversation_id']}")).json()
    assert [i["interaction_id"] for i in conversation["interactions"]] == [ids["interaction_id"]]
    digest = (await client.get("/internal/v1/state/digest")).json()
    assert digest["sections"]["operations"]["count"] == 1
    assert digest["sha256"] == rig.store.digest()


async def test_refusals_are_envelopes_in_the_callers_language(client) -> None:
    response = await client.post(
        "/internal/v1/interactions/start", headers={**ALICE, "Accept-Language": "zh-CN"},
        json={"question": "q", "agent_name": "a", "conversation_mode": "continue",
              "conversation_id": "conv_invented"})
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == "conversation_not_found" and "会话 conv_invented" in body["message"]
    assert body["request_id"]


async def test_validation(client) -> None:
    response = await client.post("/internal/v1/interactions/start", headers=ALICE, json={
        "question": "   ", "agent_name": "a", "conversation_mode": "new"})
    assert (response.status_code, response.json()["code"]) == (400, "invalid_request")
    response = await client.post("/internal/v1/interactions/start", json={
        "question": "q", "agent_name": "a", "conversation_mode": "new"})
    assert response.status_code == 400  # no account
    response = await client.post("/internal/v1/operations/begin", headers=ALICE, json={
        "conversation_id": "c", "interaction_id": "i", "tool_name": "t", "input_hash": "h",
        "correlation": "c", "operation_key": "k"})
    assert response.status_code == 400  # callers never submit an operation key


async def test_reads_are_scoped_to_the_account_when_one_is_given(client) -> None:
    started = await start(client)
    path = f"/internal/v1/interactions/{started['interaction_id']}"
    assert (await client.get(path, headers=ALICE)).status_code == 200
    assert (await client.get(path, headers={"X-BKN-Account": "bob"})).status_code == 404


async def test_writes_wait_for_the_replay_then_refuse(client, projection) -> None:
    projection.caught_up.clear()
    response = await client.post("/internal/v1/interactions/start", headers=ALICE, json={
        "question": "q", "agent_name": "a", "conversation_mode": "new"})
    assert (response.status_code, response.json()["code"]) == (503, "trace_core_unavailable")


async def test_redis_outage_is_a_503_envelope(client, rig) -> None:
    rig.coordination.available = False
    response = await client.post("/internal/v1/interactions/start", headers=ALICE, json={
        "question": "q", "agent_name": "a", "conversation_mode": "new"})
    assert (response.status_code, response.json()["code"]) == (503, "trace_core_unavailable")
