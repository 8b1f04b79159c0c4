"""A private copy of the whole mesh for a test module: own ports, topics, run folder."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import devmesh
import httpx

from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.mesh_client import MeshAuth
from tests.support.infra import Infra


def mesh_auth(secret: str, caller: str = "tests") -> MeshAuth:
    """httpx auth signing as a mesh service holding ``secret``."""
    return MeshAuth(MeshSigner(secret, caller))


@dataclass
class RunningMesh:
    layout: devmesh.MeshLayout
    keys: dict[str, str]

    @property
    def gateway(self) -> str:
        return self.layout.gateway_url

    def url(self, name: str) -> str:
        return self.layout.urls()[name]

    def client(self, account: str = "dev", **headers: str) -> httpx.Client:
        return httpx.Client(
            base_url=self.gateway,
            headers={"Authorization": f"Bearer {self.keys[account]}", **headers},
            timeout=30,
        )

    def internal(self, name: str, account: str | None = None, **headers: str) -> httpx.Client:
        """A client of one service's ``/internal/`` API, signed as a mesh service would sign."""
        if account is not None:
            headers["X-BKN-Account"] = account
        return httpx.Client(base_url=self.url(name), headers=headers, timeout=30,
                            auth=mesh_auth(self.layout.mesh_secret))

    def call(self, tool: str, body: dict[str, Any], account: str = "dev", **headers: str) -> httpx.Response:
        with self.client(account, **headers) as client:
            return client.post(f"/api/agent-retrieval/v1/kn/{tool}", json=body)

    def restart(self, name: str, *, kill: bool = False) -> devmesh.Restarted:
        """SIGTERM (or SIGKILL with ``kill``) one service and start it; returns when ready."""
        return devmesh.restart_process(self.layout, name, kill=kill)

    def stop(self, name: str) -> None:
        devmesh.stop_processes(self.layout, [name])

    def start(self, name: str) -> None:
        process = next(p for p in self.layout.services() if p.name == name)
        devmesh.start_process(self.layout, process)
        devmesh.wait_healthy(self.layout, [process])


@contextmanager
def running_mesh(
    infra: Infra,
    run_dir: Path,
    *,
    bundles: tuple[str, ...] = devmesh.DEMO_BUNDLES,
    extra_env: dict[str, str] | None = None,
) -> Iterator[RunningMesh]:
    base = devmesh.free_port_block()
    layout = devmesh.MeshLayout(
        run_dir=run_dir,
        base_port=base,
        topic_prefix=f"t{uuid.uuid4().hex[:10]}.",
        kafka=infra.kafka,
        redis=infra.redis,
        extra_env=extra_env or {},
    )
    try:
        devmesh.up(layout, with_infra=False, bundles=bundles)
        keys = json.loads((run_dir / "app_keys.json").read_text())
        yield RunningMesh(layout, keys)
    finally:
        devmesh.down(layout, with_infra=False)
