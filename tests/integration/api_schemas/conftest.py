"""One private mesh for the contract fuzzers (REST by its OpenAPI document, MCP by each tool's
input schema). Both only read, or run demo tools that count their executions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh


@pytest.fixture(scope="package")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("contract-mesh")) as running:
        yield running
