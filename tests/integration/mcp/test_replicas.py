"""Two gateway replicas behind one address: one MCP session moves freely between them.

The SDK runs stateless and sessions live in Redis, so any replica serves any request of a
session and a session ended on one replica is unknown (404) on the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx2
import pytest

from tests.integration.mcp.support import (
    LEGACY,
    MCP,
    bearer,
    connect,
    finance_stats,
    finish,
    fx_call,
    gateway_process,
    initialize_message,
    ok,
    raw_post,
    rpc_body,
    start,
)
from tests.support.mesh import RunningMesh

LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


@pytest.fixture(scope="module")
def replicas(mesh: RunningMesh, spare_port: Callable[[], int]) -> Iterator[tuple[str, str]]:
    """The mesh's own gateway and a second ``python -m gateway`` with the same env."""
    with gateway_process(mesh, spare_port(), name="gateway-replica") as second:
        yield mesh.gateway, second


@dataclass
class Exchange:
    method: str
    rpc: str | None
    port: int
    status: int
    session: str | None


@dataclass
class Alternating(httpx2.AsyncBaseTransport):
    """One address in front of two replicas: initialize goes to the first, then every
    message alternates, starting with the second; each exchange is recorded."""

    ports: tuple[int, int]
    log: list[Exchange] = field(default_factory=list)
    _turn: int = 1
    _inner: httpx2.AsyncHTTPTransport = field(default_factory=httpx2.AsyncHTTPTransport)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body: dict[str, Any] = json.loads(request.content) if request.method == "POST" else {}
        rpc = body.get("method")
        if rpc == "initialize":
            port = self.ports[0]
        else:
            port, self._turn = self.ports[self._turn], 1 - self._turn
        request.url = request.url.copy_with(port=port)
        response = await self._inner.handle_async_request(request)
        self.log.append(
            Exchange(
                request.method,
                rpc,
                port,
                response.status_code,
                request.headers.get("mcp-session-id"),
            )
        )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


async def test_one_session_alternates_between_two_replicas(
    mesh: RunningMesh, replicas: tuple[str, str]
) -> None:
    first, second = replicas
    router = Alternating((port_of(first), port_of(second)))
    before = finance_stats(mesh)["fx_convert"]
    issued: list[str] = []

    def record_session(response: httpx2.Response) -> None:
        if response.headers.get("mcp-session-id"):
            issued.append(response.headers["mcp-session-id"])

    async with connect(
        first, mesh.keys["dev"], transport=router, on_response=record_session
    ) as client:
        assert client.protocol_version == LEGACY
        names = {t.name for t in (await client.list_tools()).tools}
        assert "execute_tool" in names
        context = await start(client, "跨副本的一轮")
        found = ok(
            await client.call_tool(
                "search_capabilities",
                {"kn_id": "supply_chain", "query": "汇率", "bkn_context": context},
            )
        )
        executed = ok(await client.call_tool("execute_tool", fx_call(context)))
        finished = await finish(client, context)

    assert found["bkn_receipt"]["receipt_status"] == "completed"
    assert executed["body"]["converted"] == 72.0
    assert finance_stats(mesh)["fx_convert"] == before + 1
    assert finished["operations"] == 2 and finished["evidence_status"] == "complete"

    (session,) = issued
    messages = [e for e in router.log if e.method in ("POST", "DELETE")]
    assert all(200 <= e.status < 300 for e in messages), router.log
    assert messages[0].rpc == "initialize" and messages[0].port == port_of(first)
    assert all(e.session == session for e in messages[1:]), router.log
    listing = next(e for e in messages if e.rpc == "tools/list")
    assert listing.port == port_of(second)
    calls = {e.port for e in messages if e.rpc == "tools/call"}
    assert calls == {port_of(first), port_of(second)}
    assert messages[-1].method == "DELETE"
    for url in replicas:  # ended on one replica, unknown on both
        gone = raw_post(
            url + MCP,
            mesh.keys["dev"],
            LIST_TOOLS,
            **{"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY},
        )
        assert gone.status_code == 404


@pytest.mark.parametrize("order", ["first-then-second", "second-then-first"])
def test_a_session_ended_on_one_replica_is_404_on_the_other(
    mesh: RunningMesh, replicas: tuple[str, str], order: str
) -> None:
    opened_on, ended_on = replicas if order == "first-then-second" else replicas[::-1]
    key = mesh.keys["dev"]
    opened = raw_post(opened_on + MCP, key, initialize_message())
    session = opened.headers["mcp-session-id"]
    headers = {"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY}
    for url in replicas:
        listed = raw_post(url + MCP, key, LIST_TOOLS, **headers)
        assert listed.status_code == 200 and rpc_body(listed)["result"]["tools"]
    ended = httpx.delete(
        ended_on + MCP, headers={**bearer(key), "Mcp-Session-Id": session}, timeout=10
    )
    assert ended.status_code == 200
    for url in replicas:
        assert raw_post(url + MCP, key, LIST_TOOLS, **headers).status_code == 404
        again = httpx.delete(
            url + MCP, headers={**bearer(key), "Mcp-Session-Id": session}, timeout=10
        )
        assert again.status_code == 404
