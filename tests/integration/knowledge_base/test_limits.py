"""Limits set by the service's settings (one restart with tight values, then back):
SEARCH_TIMEOUT distinct from no_candidates, PAYLOAD_TOO_LARGE, RATE_LIMITED with
retryAfterSeconds per account; and vectors reused from the checkpoint after a restart."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.knowledge_base.support import DEMO, api, ok, refused, wait_revision
from tests.support.calls import wait_until
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration
TIGHT = {"KNOWLEDGE_BASE_SEARCH_DEADLINE_SECONDS": "0", "KNOWLEDGE_BASE_READ_MAX_BYTES": "2000",
         "KNOWLEDGE_BASE_RATE_LIMIT_PER_SECOND": "0.01", "KNOWLEDGE_BASE_RATE_LIMIT_BURST": "6"}


def _stats(mesh: RunningMesh) -> dict[str, object]:
    with mesh.internal("knowledge_base") as client:
        return dict(client.get("/internal/v1/stats").json())


def _vectors_ready(mesh: RunningMesh) -> bool:
    """Every base indexed at its revision, every chunk embedded, and the checkpoint written."""
    stats = _stats(mesh)
    vectors = stats["vectors"]
    return bool(stats["settled"]) and isinstance(vectors, dict) and bool(vectors["checkpointed"])


@pytest.fixture(scope="module")
def tight(kb_mesh: RunningMesh) -> Iterator[RunningMesh]:
    wait_revision(kb_mesh, DEMO, 1)
    wait_until(lambda: _vectors_ready(kb_mesh), timeout=300, interval=1)
    kb_mesh.layout.extra_env.update(TIGHT)
    try:
        kb_mesh.restart("knowledge-base")
        yield kb_mesh
    finally:
        for key in TIGHT:
            kb_mesh.layout.extra_env.pop(key)
        kb_mesh.restart("knowledge-base")


def test_timeout_payload_and_rate_limits(tight: RunningMesh) -> None:
    wait_until(lambda: api(tight, DEMO, "/tree", account="analyst").status_code == 200, timeout=60)
    timeout = refused(api(tight, DEMO, "/files/search", query="annual leave"), 504, "SEARCH_TIMEOUT")
    assert timeout["details"]["deadlineSeconds"] == 0
    refused(api(tight, DEMO, "/files/content", path="pages/handbook/employee-handbook.md"),
            413, "PAYLOAD_TOO_LARGE")
    ok(api(tight, DEMO, "/files/content", path="pages/it/vpn.md"))
    statuses = [api(tight, DEMO, "/tree").status_code for _ in range(6)]
    assert statuses[-1] == 429 and set(statuses) <= {200, 429}
    limited = refused(api(tight, DEMO, "/tree"), 429, "RATE_LIMITED")
    assert limited["details"]["retryAfterSeconds"] >= 1
    assert api(tight, DEMO, "/tree", account="service").status_code == 200  # per account


def test_a_restart_reuses_the_checkpointed_vectors(kb_mesh: RunningMesh, tight: RunningMesh) -> None:
    # after the tight restart (which loaded the checkpoint), nothing was embedded again
    vectors = _stats(tight)["vectors"]
    assert isinstance(vectors, dict)
    wait_until(lambda: _stats(tight)["vectors"]["stored"] > 0, timeout=60)  # type: ignore[index]
    # and the encoder is loaded for the queries although no chunk waits for it
    wait_until(lambda: _stats(tight)["vectors"]["encoderLoaded"], timeout=120)  # type: ignore[index]
    assert _stats(tight)["vectors"]["embeddedSinceStart"] == 0  # type: ignore[index]
    assert _stats(tight)["vectors"]["pending"] == 0  # type: ignore[index]
