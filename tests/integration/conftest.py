"""Integration fixtures: the real Kafka broker and Redis, and a private mesh per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.infra import Infra, real_infra, real_postgres
from tests.support.mesh import RunningMesh, running_mesh


@pytest.fixture(scope="session")
def infra() -> Iterator[Infra]:
    with real_infra() as running:
        yield running


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """A PostgreSQL URL; started (and stopped) only when a test asks for it."""
    with real_postgres() as url:
        yield url


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("mesh")) as running:
        yield running


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)
