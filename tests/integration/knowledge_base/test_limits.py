"""RATE_LIMITED with retryAfterSeconds, SEARCH_TIMEOUT distinct from no_candidates,
PAYLOAD_TOO_LARGE, and the index surviving a restart without embedding everything again."""

from __future__ import annotations

import httpx
import pytest

from tests.integration.knowledge_base.support import DEMO, api, ok, refused, wait_revision
from tests.support.calls import wait_until
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration


def _stats(mesh: RunningMesh) -> dict[str, object]:
    return dict(httpx.get(f"{mesh.url('knowledge_base')}/internal/v1/stats", timeout=10).json())


def test_rate_limited_carries_retry_after_seconds(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1, account="service")
    for _ in range(2000):
        response = api(kb_mesh, DEMO, "/tree", account="service")
        if response.status_code != 200:
            break
    error = refused(response, 429, "RATE_LIMITED")
    assert error["details"]["retryAfterSeconds"] >= 1
    ok(api(kb_mesh, DEMO, "/tree", account="dev"))  # the bucket is per account


def test_restart_reuses_vectors_timeout_and_payload_limits(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1)
    wait_until(lambda: (_stats(kb_mesh)["vectors"] or {}).get("pending") == 0  # type: ignore[union-attr]
               and ok(api(kb_mesh, DEMO, "/files/search", query="sabbatical"))["semanticStatus"]["state"] == "ready",
               timeout=240, interval=1)
    layout = kb_mesh.layout
    layout.extra_env.update({"KNOWLEDGE_BASE_SEARCH_DEADLINE_SECONDS": "0",
                             "KNOWLEDGE_BASE_READ_MAX_BYTES": "2000"})
    try:
        kb_mesh.restart("knowledge-base")
        wait_revision(kb_mesh, DEMO, 1)
        timeout = refused(api(kb_mesh, DEMO, "/files/search", query="annual leave"), 504, "SEARCH_TIMEOUT")
        assert timeout["details"]["deadlineSeconds"] == 0
        refused(api(kb_mesh, DEMO, "/files/content", path="pages/handbook/employee-handbook.md"),
                413, "PAYLOAD_TOO_LARGE")
        ok(api(kb_mesh, DEMO, "/files/content", path="pages/it/vpn.md"))
    finally:
        for key in ("KNOWLEDGE_BASE_SEARCH_DEADLINE_SECONDS", "KNOWLEDGE_BASE_READ_MAX_BYTES"):
            layout.extra_env.pop(key)
        kb_mesh.restart("knowledge-base")
    wait_revision(kb_mesh, DEMO, 1)
    body = wait_until(lambda: (b := ok(api(kb_mesh, DEMO, "/files/search", query="sabbatical")))
                      ["semanticStatus"]["state"] == "ready" and b, timeout=120, interval=0.5)
    assert body["searchStatus"] == "ok"
    empty = ok(api(kb_mesh, DEMO, "/files/search", query="qxzvv blorftang zzkqpw"))
    assert empty["searchStatus"] == "no_candidates"
