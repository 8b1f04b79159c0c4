"""Service identity on every internal hop, against a running mesh.

Every ``/internal/`` route of every service (read from the service's own OpenAPI document, so a
new route is covered the day it is added) is called without a credential, with a wrong one, with
the previous secret (a rotation in progress) and with the current one. A refused execution runs
nothing and publishes no receipt; a tampered body or account and a replayed old request are
refused; a service without the secret does not start.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import devmesh
import httpx
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from bkn_common.contracts.topics import RECEIPTS
from bkn_common.infra.mesh_auth import MeshSigner
from tests.integration.mcp.support import finance_stats, fx_call
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, mesh_auth, running_mesh

PREVIOUS = "previous-" + secrets.token_urlsafe(24)
UPSTREAMS = {"finance_api", "logistics_mcp"}


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    """A mesh in the middle of a rotation: it accepts the run folder's secret and PREVIOUS."""
    with running_mesh(infra, tmp_path_factory.mktemp("mesh-auth"),
                      extra_env={"MESH_INTERNAL_SECRET_PREVIOUS": PREVIOUS}) as running:
        yield running


def internal_routes(mesh: RunningMesh) -> list[tuple[str, str, str]]:
    """(service, method, path) of every internal route, path parameters filled in."""
    routes = []
    for name, url in mesh.layout.urls().items():
        if name in UPSTREAMS:
            continue
        document = httpx.get(f"{url}/openapi.json", timeout=10).json()
        for path, operations in document["paths"].items():
            if path.startswith("/internal/"):
                filled = path.replace("{", "missing-").replace("}", "")
                routes.extend((name, method.upper(), filled) for method in operations)
    return routes


def send(mesh: RunningMesh, service: str, method: str, path: str, auth: httpx.Auth | None,
         **headers: str) -> httpx.Response:
    body = {} if method == "POST" else None
    params = {"section": "networks"} if path.endswith("/snapshot") else None
    with httpx.Client(base_url=mesh.url(service), auth=auth, timeout=30) as client:
        return client.request(method, path, json=body, params=params,
                              headers={"X-BKN-Account": "dev", **headers})


def test_every_internal_route_of_every_service_needs_the_mesh_credential(mesh: RunningMesh) -> None:
    routes = internal_routes(mesh)
    services = {service for service, _, _ in routes}
    assert services == {"capability_index", "tool_executor", "trace_recorder", "ontology_query",
                        "knowledge_base"}
    assert len(routes) >= 38
    current, previous = mesh_auth(mesh.layout.mesh_secret), mesh_auth(PREVIOUS)
    wrong = mesh_auth("wrong-" + secrets.token_urlsafe(24))
    for service, method, path in routes:
        where = f"{service} {method} {path}"
        for auth, reason in ((None, "missing"), (wrong, "bad_signature")):
            refused = send(mesh, service, method, path, auth)
            assert refused.status_code == 401, where
            assert refused.json()["code"] == "internal_unauthenticated", where
            assert refused.json()["details"] == {"reason": reason}, where
        for auth in (previous, current):
            answered = send(mesh, service, method, path, auth)
            assert answered.status_code != 401, (where, answered.text)


def test_the_gateway_has_no_unsigned_internal_door(mesh: RunningMesh) -> None:
    refused = httpx.post(f"{mesh.gateway}/internal/v1/execute", json={}, timeout=10,
                         headers={"X-BKN-Account": "dev", "Accept-Language": "zh-CN"})
    assert refused.status_code == 401 and refused.json()["code"] == "internal_unauthenticated"
    assert "网格服务凭证" in refused.json()["message"]


def test_health_probes_stay_open(mesh: RunningMesh) -> None:
    for name, url in mesh.layout.urls().items():
        if name not in UPSTREAMS:
            assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200
            assert httpx.get(f"{url}/readyz", timeout=10).status_code == 200


async def _receipt_count(mesh: RunningMesh) -> int:
    consumer = AIOKafkaConsumer(bootstrap_servers=mesh.layout.kafka)
    await consumer.start()
    try:
        topic = RECEIPTS.full_name(mesh.layout.topic_prefix)
        partitions = [TopicPartition(topic, p) for p in range(RECEIPTS.partitions)]
        ends = await consumer.end_offsets(partitions)
        return sum(ends.values())
    finally:
        await consumer.stop()


def receipts(mesh: RunningMesh) -> int:
    return asyncio.run(_receipt_count(mesh))


class Tampered(httpx.Auth):
    """Signs the request as sent, then changes one signed part of it."""

    requires_request_body = True

    def __init__(self, secret: str, part: str) -> None:
        self._signer, self._part = MeshSigner(secret, "gateway"), part

    def auth_flow(self, request: httpx.Request):  # type: ignore[no-untyped-def]
        request.headers.update(self._signer.headers(
            request.method, request.url.path, body=request.content,
            account=request.headers.get("x-bkn-account")))
        if self._part == "account":
            request.headers["x-bkn-account"] = "viewer"
        else:
            content = request.content.replace(b"\"amount\":10", b"\"amount\":90")
            request.stream = httpx.ByteStream(content)
            request.headers["content-length"] = str(len(content))
        yield request


class Stale(httpx.Auth):
    """A correctly signed request from two minutes ago (a captured call replayed later)."""

    requires_request_body = True

    def __init__(self, secret: str) -> None:
        self._signer = MeshSigner(secret, "gateway", clock=lambda: time.time() - 120)

    def auth_flow(self, request: httpx.Request):  # type: ignore[no-untyped-def]
        request.headers.update(self._signer.headers(
            request.method, request.url.path, body=request.content,
            account=request.headers.get("x-bkn-account")))
        yield request


def test_a_refused_execution_runs_nothing_and_publishes_no_receipt(mesh: RunningMesh) -> None:
    call = fx_call(None)
    assert call["arguments"]["amount"] == 10
    secret = mesh.layout.mesh_secret
    executed, published = finance_stats(mesh)["fx_convert"], receipts(mesh)
    for auth in (None, mesh_auth("wrong-" + secrets.token_urlsafe(24)), Tampered(secret, "body"),
                 Tampered(secret, "account"), Stale(secret)):
        with httpx.Client(base_url=mesh.url("tool_executor"), auth=auth, timeout=30) as client:
            refused = client.post("/internal/v1/execute", json=call, headers={"X-BKN-Account": "dev"})
        assert refused.status_code == 401, refused.text
    assert finance_stats(mesh)["fx_convert"] == executed
    assert receipts(mesh) == published

    with mesh.internal("tool_executor", "dev") as client:
        answered = client.post("/internal/v1/execute", json=call)
    assert answered.status_code == 200, answered.text
    assert answered.json()["receipt_id"]
    assert finance_stats(mesh)["fx_convert"] == executed + 1
    assert receipts(mesh) == published + 1


def test_the_same_signed_request_sent_twice_is_refused_the_second_time(mesh: RunningMesh) -> None:
    headers = MeshSigner(mesh.layout.mesh_secret, "gateway").headers("GET", "/internal/v1/stats")
    first = httpx.get(f"{mesh.url('capability_index')}/internal/v1/stats", headers=headers, timeout=10)
    again = httpx.get(f"{mesh.url('capability_index')}/internal/v1/stats", headers=headers, timeout=10)
    assert first.status_code == 200
    assert again.status_code == 401 and again.json()["details"] == {"reason": "replayed"}


def test_the_gateway_signs_every_hop_with_the_callers_account(mesh: RunningMesh) -> None:
    started = mesh.call("bkn_start_interaction",
                        {"question": "汇率", "agent_name": "tests", "conversation_mode": "new"})
    assert started.status_code == 200, started.text
    context = {k: started.json()[k] for k in ("conversation_id", "interaction_id")}
    found = mesh.call("search_capabilities",
                      {"kn_id": "supply_chain", "query": "汇率", "bkn_context": context})
    assert found.status_code == 200 and found.json()["capabilities"]
    executed = mesh.call("execute_tool", fx_call(context))
    assert executed.status_code == 200, executed.text
    finished = mesh.call("bkn_finish_interaction", {**context, "outcome": "completed", "answer": "72 CNY"})
    assert finished.status_code == 200, finished.text
    # the public execution_status is the turn's outcome (upstream vocabulary, issue 18); that every
    # signed hop went through shows in the trace core's summary of the operations
    assert (finished.json()["execution_status"], finished.json()["operations_status"]) == (
        "completed", "succeeded")


def test_a_service_without_the_secret_refuses_to_start(mesh: RunningMesh, tmp_path: Path) -> None:
    env = {k: v for k, v in mesh.layout.env().items() if not k.startswith("MESH_INTERNAL_SECRET")}
    env["CAPABILITY_INDEX_PORT"] = str(mesh.layout.port(31))
    ended = subprocess.run([str(devmesh.BIN / "python"), "-m", "capability_index"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert ended.returncode != 0
    assert "MESH_INTERNAL_SECRET is not set" in ended.stderr
