"""One private mesh for the logic-property and action tests, on a free block of ports.

The modules only add their own executions (and a few extra schema entries under their own
ids), so they share one mesh. Its ports are a free 40-port block, so a parallel run of other
integration directories cannot collide with it.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from contextlib import suppress

import pytest

from tests.support import mesh as mesh_support
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

BLOCK = 40


def _port_free(port: int) -> bool:
    with socket.socket() as sock, suppress(OSError):
        sock.bind(("127.0.0.1", port))
        return True
    return False


def _free_block() -> int:
    bases = list(range(42000, 60000, BLOCK))
    random.shuffle(bases)
    for base in bases:
        if all(_port_free(base + offset) for offset in range(BLOCK)):
            return base
    raise RuntimeError("no free block of ports for the actions test mesh")


@pytest.fixture(scope="session")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    counter = mesh_support._next_base
    saved, counter[0] = counter[0], _free_block()
    env = {"GATEWAY_ACCESS_CACHE_SECONDS": "0"}
    try:
        with running_mesh(infra, tmp_path_factory.mktemp("actions-mesh"), extra_env=env) as m:
            counter[0] = saved
            yield m
    finally:
        counter[0] = saved
