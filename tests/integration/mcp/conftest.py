"""One private mesh for every MCP test module, on a block of ports nobody else is using.

The ``mesh`` fixture here overrides the module-level one of ``tests/integration``: the MCP
modules only read and add their own conversations, so they share one mesh (one start of
~20 s instead of one per module). Its ports are a free 40-port block, so a parallel run of
other integration tests (which count up from 31000) cannot collide with it; offsets 20-39 of
the block are unused by the mesh and serve extra gateway processes (``spare_port``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import devmesh
import pytest

from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

SPARE_OFFSET = 20


@pytest.fixture(scope="package")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("mcp-mesh")) as running:
        yield running


@pytest.fixture(scope="package")
def spare_port(mesh: RunningMesh) -> Callable[[], int]:
    """A port for another gateway process of the same mesh (never used twice)."""
    next_offset = [SPARE_OFFSET]

    def take() -> int:
        while next_offset[0] < devmesh.PORT_BLOCK:
            port = mesh.layout.port(next_offset[0])
            next_offset[0] += 1
            if devmesh.port_free(port):
                return port
        raise RuntimeError("no spare port left in the MCP mesh's block")

    return take
