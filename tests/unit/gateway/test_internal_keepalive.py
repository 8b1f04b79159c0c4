"""The gateway's pool to the internal services closes an idle connection before the services
do (``HTTP_KEEPALIVE_SECONDS``): otherwise a call sent on a connection a service is closing
is a 503 for a healthy service."""

from __future__ import annotations

from bkn_common.contracts.errors import ApiError
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.settings import ServiceSettings
from gateway.adapters.internal import HttpServices
from gateway.settings import GatewaySettings
from tests.support.closing_server import closing_server, twice

UNUSED = "http://127.0.0.1:9"


async def _two_calls_apart(keepalive_seconds: float) -> tuple[list[str], int]:
    async with closing_server() as (url, server):
        services = HttpServices(capability_index=url, tool_executor=UNUSED, trace_recorder=UNUSED,
                                ontology_query=UNUSED, knowledge_base=UNUSED, timeout=5,
                                signer=MeshSigner("s" * 32, "gateway"), keepalive_seconds=keepalive_seconds)

        async def call() -> str:
            try:
                await services.capability_index.call("POST", "/internal/v1/search", json={"q": 1})
                return "ok"
            except ApiError as exc:
                return exc.code

        try:
            return await twice(call), server.connections
        finally:
            await services.close()


async def test_an_idle_connection_past_the_keepalive_is_replaced() -> None:
    assert await _two_calls_apart(0.2) == (["ok", "ok"], 2)


async def test_a_longer_keepalive_than_the_services_would_send_on_a_closing_connection() -> None:
    assert await _two_calls_apart(30) == (["ok", "dependency_unavailable"], 1)


def test_the_gateway_lets_go_of_an_idle_connection_before_a_service_closes_it() -> None:
    assert GatewaySettings().internal_keepalive_seconds < ServiceSettings().http_keepalive_seconds
