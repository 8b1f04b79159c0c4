"""One private mesh for the knowledge-base tests, with the demo base applied."""

from __future__ import annotations

from collections.abc import Iterator

import devmesh
import pytest

from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh


@pytest.fixture(scope="package")
def kb_mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    run_dir = tmp_path_factory.mktemp("kbmesh")
    with running_mesh(infra, run_dir, bundles=(),
                      extra_env={"KNOWLEDGE_BASE_CHECKPOINT_DIR": str(run_dir / "kb-checkpoint"),
                                 "KNOWLEDGE_BASE_CHECKPOINT_INTERVAL_SECONDS": "1"}) as mesh:
        devmesh.apply_knowledge_bases(mesh.layout, devmesh.DEMO_KNOWLEDGE_BASES)
        yield mesh
