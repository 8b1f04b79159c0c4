"""Issue: the mesh runs for real — the first path end to end over real Kafka and Redis."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import devmesh
import httpx
import pytest

from clctl.bundle.loader import load_bundle
from clctl.bundle.models import BindingsDoc, LifecycleDoc, ToolboxDoc
from tests.support.mesh import RunningMesh

DEMO = devmesh.ROOT / "examples" / "supply_chain"


def expected_visible() -> list[tuple[str, str | None, str]]:
    """Mounted, published and enabled capabilities, in binding order, read from the bundle."""
    bundle = load_bundle(DEMO)
    lifecycle: LifecycleDoc = bundle.of(LifecycleDoc)[0]
    offline = {box for box, state in lifecycle.toolboxes.items() if state == "offline"}
    offline |= {s for s, state in lifecycle.mcp_servers.items() if state == "offline"}
    disabled = {(d.owner, d.tool) for d in lifecycle.disabled_tools}
    bindings: BindingsDoc = bundle.of(BindingsDoc)[0]
    return [
        (c.type, c.owner, c.id)
        for c in bindings.capabilities
        if c.owner not in offline and (c.owner, c.id) not in disabled
    ]


def listed(response: httpx.Response) -> list[tuple[str, str | None, str]]:
    assert response.status_code == 200, response.text
    return [
        (c["capability_type"], c.get("owner_id"), c["capability_id"])
        for c in response.json()["capabilities"]
    ]


def test_search_lists_mounted_published_enabled_in_binding_order(mesh: RunningMesh) -> None:
    expected = expected_visible()
    bundle = load_bundle(DEMO)
    offline_box = next(t for t in bundle.of(ToolboxDoc) if t.id == "box_legacy_erp")
    got = listed(mesh.call("search_capabilities", {"kn_id": "supply_chain"}))
    assert got == expected
    assert not any(owner == offline_box.id for _, owner, _ in got)
    assert ("function", "box_finance", "tool_get_invoice") not in got


MESH_SERVICES = frozenset({"gateway", "capability-index", "tool-executor", "trace-recorder", "ontology-query",
                           "knowledge-base"})


def test_every_service_answers_health_and_readiness(mesh: RunningMesh) -> None:
    checked = set()
    for process in mesh.layout.services():
        health = httpx.get(f"http://127.0.0.1:{process.port}/healthz", timeout=5)
        assert (health.status_code, health.json()["status"]) == (200, "ok"), (process.name, health.text)
        ready = httpx.get(f"http://127.0.0.1:{process.port}{process.health_path}", timeout=5)
        assert ready.status_code == 200, (process.name, ready.text)
        if process.name not in MESH_SERVICES:  # the demo upstreams answer a bare 200
            continue
        body = ready.json()
        # every dependency the service checks is named and passing, not just a 200
        assert body["status"] == "ready" and body["checks"], (process.name, body)
        assert all(passed is True for passed in body["checks"].values()), (process.name, body)
        checked.add(process.name)
    assert checked == MESH_SERVICES


@pytest.mark.parametrize(
    "authorization", [None, "Bearer bak_not-a-real-key", "Basic abc", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.x"]
)
def test_missing_or_invalid_credentials_get_401_envelope(mesh: RunningMesh, authorization: str | None) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    response = httpx.post(
        f"{mesh.gateway}/api/agent-retrieval/v1/kn/search_capabilities",
        json={"kn_id": "supply_chain"}, headers={**headers, "Accept-Language": "zh-CN"}, timeout=10,
    )
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "unauthenticated"
    assert "未认证" in body["message"]
    assert body["request_id"] == response.headers["bkn-request-id"]


def test_english_message_by_accept_language(mesh: RunningMesh) -> None:
    response = httpx.post(
        f"{mesh.gateway}/api/agent-retrieval/v1/kn/search_capabilities",
        json={"kn_id": "supply_chain"}, headers={"Accept-Language": "en-US,zh;q=0.5"}, timeout=10,
    )
    assert response.status_code == 401
    assert response.json()["message"].startswith("Not authenticated")


@pytest.mark.parametrize(("method", "path", "status", "code"), [
    ("GET", "/api/agent-retrieval/v1/no-such-path", 404, "route_not_found"),
    ("GET", "/api/agent-retrieval/v1/kn/search_capabilities", 405, "method_not_allowed"),
    ("PUT", "/api/agent-retrieval/v1/mcp", 405, "method_not_allowed"),
    ("DELETE", "/api/agent-observability/v1/interactions", 405, "method_not_allowed"),
    ("GET", "/openapi/v2/knowledge-bases/kb/no-such-path", 404, "NOT_FOUND"),
])
def test_unknown_paths_and_methods_get_the_envelope(mesh: RunningMesh, method: str, path: str, status: int,
                                                    code: str) -> None:
    response = httpx.request(method, f"{mesh.gateway}{path}", headers={"Accept-Language": "zh-CN"}, timeout=10)
    assert response.status_code == status, response.text
    body = response.json()
    error = body.get("error", body)  # the knowledge-base API speaks its own (seed 002) envelope
    assert error["code"] == code
    assert error["details"]["path"] == path
    assert body.get("request_id", body.get("requestId")) == response.headers["bkn-request-id"]
    if status == 405:
        assert method not in response.headers["allow"]
        assert set(error["details"]["allowed"]) == set(response.headers["allow"].split(", "))
        assert "不接受" in error["message"]
    else:
        assert "没有这个接口" in error["message"]


def test_an_internal_route_a_service_lacks_is_route_not_found(mesh: RunningMesh) -> None:
    with mesh.internal("capability_index", account="dev") as client:
        response = client.get("/internal/v1/no-such-route", headers={"Accept-Language": "en-US"})
    assert response.status_code == 404
    assert response.json()["code"] == "route_not_found"
    assert response.json()["message"].startswith("No such endpoint")


def _end_offsets(mesh: RunningMesh) -> dict[str, int]:
    import asyncio

    from aiokafka import AIOKafkaConsumer, TopicPartition

    from bkn_common.contracts.topics import DOMAIN_TOPICS
    from bkn_common.infra.kafka import topic_partitions

    async def read() -> dict[str, int]:
        names = [t.full_name(mesh.layout.topic_prefix) for t in DOMAIN_TOPICS]
        parts = await topic_partitions(mesh.layout.kafka, names)
        consumer = AIOKafkaConsumer(bootstrap_servers=mesh.layout.kafka)
        await consumer.start()
        try:
            tps = [TopicPartition(t, p) for t, ps in parts.items() for p in ps]
            ends = await consumer.end_offsets(tps)
        finally:
            await consumer.stop()
        return {f"{tp.topic}[{tp.partition}]": offset for tp, offset in ends.items()}

    return asyncio.run(read())


def test_malformed_bundle_is_refused_whole_and_nothing_is_published(
    mesh: RunningMesh, tmp_path: Path
) -> None:
    broken = tmp_path / "bundle"
    shutil.copytree(DEMO, broken)
    schema = broken / "schema.yaml"
    text = schema.read_text(encoding="utf-8").replace("target: material", "target: no_such_type", 1)
    schema.write_text(text, encoding="utf-8")
    before = _end_offsets(mesh)
    result = subprocess.run(
        [str(devmesh.BIN / "clctl"), "apply", "-f", str(broken)],
        env=mesh.layout.env(), capture_output=True, text=True,
    )
    assert result.returncode == 2
    assert "schema.yaml" in result.stderr
    assert "relation_types[" in result.stderr and "no_such_type" in result.stderr
    assert "nothing was published" in result.stderr
    assert _end_offsets(mesh) == before
