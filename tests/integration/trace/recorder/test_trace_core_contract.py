"""The gateway's TraceCore contract (tests/contracts/trace_core.py) on ``RemoteTraceCore``: the
gateway's signed aiohttp client to a real trace-recorder (its app on a free port, with real
Kafka and Redis). (The unit suite's ``OperationLog``: tests/unit/gateway/test_trace_core_contract.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from bkn_common.infra.mesh_auth import MeshSigner
from gateway.adapters.internal import HttpServices
from gateway.adapters.trace_core import RemoteTraceCore
from gateway.service_layer.ports import TraceCore
from tests.contracts.trace_core import TraceCoreContract
from tests.support.serving import served

SECRET = "integration-test-mesh-secret-0123"  # the rig's (tests/integration/trace/recorder/conftest.py)
UNUSED = "http://127.0.0.1:1"


@pytest.fixture(scope="module")
async def trace_recorder_url(env: Any) -> AsyncIterator[str]:
    """The rig's trace-recorder app served over HTTP on a free port, in this event loop."""
    async with env.running() as running, served(running.app) as url:
        yield url


class TestRemoteTraceCore(TraceCoreContract):
    @pytest.fixture
    async def core(self, trace_recorder_url: str, env: Any) -> AsyncIterator[TraceCore]:
        services = HttpServices(capability_index=UNUSED, tool_executor=UNUSED, trace_recorder=trace_recorder_url,
                                ontology_query=UNUSED, knowledge_base=UNUSED, timeout=30,
                                signer=MeshSigner(SECRET, "gateway"))
        redis = Redis.from_url(env.settings().redis_url)
        try:
            yield RemoteTraceCore(services.trace_recorder, redis, env.redis_prefix + "gateway:")
        finally:
            await services.close()
            await redis.aclose()
