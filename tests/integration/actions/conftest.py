"""One private mesh for the logic-property and action tests, on a free block of ports.

The modules only add their own executions (and a few extra schema entries under their own
ids), so they share one mesh. Its ports are a free 40-port block, so a parallel run of other
integration directories cannot collide with it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh


@pytest.fixture(scope="package")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"GATEWAY_ACCESS_CACHE_SECONDS": "0"}
    with running_mesh(infra, tmp_path_factory.mktemp("actions-mesh"), extra_env=env) as m:
        yield m
