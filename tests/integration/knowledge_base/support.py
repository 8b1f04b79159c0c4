"""Helpers of the knowledge-base tests: the public REST API, clctl kb apply, waiting."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import devmesh
import httpx

from tests.support.calls import wait_until
from tests.support.mesh import RunningMesh

DEMO = "handbook"


def api(mesh: RunningMesh, kb: str, route: str, /, *, account: str = "dev", **params: Any) -> httpx.Response:
    with mesh.client(account) as client:
        return client.get(f"/openapi/v2/knowledge-bases/{quote(kb, safe='')}{route}", params=params)


def get(mesh: RunningMesh, action: str, account: str = "dev") -> httpx.Response:
    """Follow a ``readActions`` path exactly as the service returned it."""
    with mesh.client(account) as client:
        return client.get(action)


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    body = response.json()
    assert response.status_code == status, response.text
    assert set(body) == {"error", "requestId"}, body
    assert body["error"]["code"] == code and body["error"]["httpStatus"] == status, body
    assert body["error"]["message"] and body["requestId"], body
    return dict(body["error"])


def kb_apply(
    mesh: RunningMesh, folder: Path, kb: str, *readers: str, name: str = "", extra: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    command = [str(devmesh.BIN / "clctl"), "kb", "apply", "--kb", kb, str(folder), *extra]
    for reader in readers:
        command += ["--reader", reader]
    if name:
        command += ["--name", name]
    return subprocess.run(command, env=mesh.layout.env(), capture_output=True, text=True, timeout=120)


def wait_revision(mesh: RunningMesh, kb: str, revision: int, account: str = "dev") -> dict[str, Any]:
    def seen() -> dict[str, Any] | None:
        response = api(mesh, kb, "/tree", account=account)
        if response.status_code == 200 and response.json()["activeContentRevision"] == revision:
            return dict(response.json())
        return None

    return wait_until(seen, timeout=60, interval=0.2)


def write_base(root: Path, pages: dict[str, str], index: str = "# Test base\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for old in root.rglob("*.md"):
        old.unlink()
    (root / "index.md").write_text(index)
    for path, text in pages.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return root


def page(title: str, body: str, tags: tuple[str, ...] = ("test",), **extra: str) -> str:
    lines = ["---", f"title: {title}", f"description: About {title}", f"tags: [{', '.join(tags)}]"]
    lines += [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join([*lines, "---", f"# {title}", "", body, ""])
