"""The demo "logistics" MCP upstream, served by uvicorn on a free port and called with the SDK.

The server runs in a background thread (its own event loop); the tests talk to it over real
HTTP with the official client: ``streamable_http_client`` + ``ClientSession`` (the
initialize-handshake protocol) and the high-level ``Client`` (``mode="auto"``, which
negotiates the 2026-07-28 protocol with this server).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent
from starlette.applications import Starlette

from demo_upstreams.logistics_mcp import (
    CARRIERS,
    MCP_PATH,
    TOOL_NAMES,
    create_app,
    delivery_estimate,
)


@dataclass(frozen=True)
class RunningServer:
    base_url: str

    @property
    def mcp_url(self) -> str:
        return self.base_url + MCP_PATH


@contextmanager
def serve(app: Starlette) -> Iterator[RunningServer]:
    """Run ``app`` with uvicorn on a free 127.0.0.1 port in a background thread."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not uv.started:
        assert thread.is_alive(), "uvicorn thread died during startup"
        assert time.monotonic() < deadline, "uvicorn did not start within 10 s"
        time.sleep(0.02)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}")
    finally:
        uv.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="module")
def server() -> Iterator[RunningServer]:
    with serve(create_app()) as running:
        yield running


@asynccontextmanager
async def session(server: RunningServer) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(server.mcp_url) as (read_stream, write_stream),
        ClientSession(read_stream, write_stream) as s,
    ):
        await s.initialize()
        yield s


async def get_stats(server: RunningServer) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        response = await http.get("/_stats")
    assert response.status_code == 200
    body: dict[str, int] = response.json()
    return body


async def reset_stats(server: RunningServer) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        response = await http.post("/_stats/reset")
    assert response.status_code == 200
    body: dict[str, int] = response.json()
    return body


def only_text(result: CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


# ------------------------------------------------------------------ discovery


async def test_initialize_and_list_tools_with_json_schemas(server: RunningServer) -> None:
    async with (
        streamable_http_client(server.mcp_url) as (read_stream, write_stream),
        ClientSession(read_stream, write_stream) as s,
    ):
        init = await s.initialize()
        assert init.server_info.name == "logistics"
        assert init.capabilities.tools is not None
        listed = await s.list_tools()

    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOL_NAMES)

    track = tools["track_shipment"].input_schema
    assert track["type"] == "object"
    assert track["required"] == ["shipment_id"]
    assert track["properties"]["shipment_id"]["type"] == "string"

    estimate = tools["estimate_delivery"].input_schema
    assert estimate["type"] == "object"
    assert sorted(estimate["required"]) == ["destination", "origin", "weight_kg"]
    assert estimate["properties"]["origin"]["type"] == "string"
    assert estimate["properties"]["destination"]["type"] == "string"
    assert estimate["properties"]["weight_kg"]["type"] == "number"
    assert estimate["properties"]["weight_kg"]["exclusiveMinimum"] == 0

    for tool in tools.values():
        assert tool.description
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"


# ------------------------------------------------------------------ track_shipment


async def test_track_shipment_is_deterministic(server: RunningServer) -> None:
    async with session(server) as s:
        first = await s.call_tool("track_shipment", {"shipment_id": "SF1234567890"})
        second = await s.call_tool("track_shipment", {"shipment_id": "sf1234567890"})
        other = await s.call_tool("track_shipment", {"shipment_id": "JD0001"})

    assert first.is_error is False
    status = first.structured_content
    assert isinstance(status, dict)
    assert status["shipment_id"] == "SF1234567890"
    assert status["carrier"] == CARRIERS["SF"]
    assert status["status"] in {"picked_up", "in_transit", "out_for_delivery", "delivered"}
    assert status["location"]
    assert json.loads(only_text(first)) == status
    assert second.structured_content == status
    assert isinstance(other.structured_content, dict)
    assert other.structured_content["carrier"] == CARRIERS["JD"]


async def test_track_shipment_unknown_prefix_is_a_tool_error(server: RunningServer) -> None:
    async with session(server) as s:
        result = await s.call_tool("track_shipment", {"shipment_id": "XX42"})
    assert result.is_error is True
    assert result.structured_content is None
    error = json.loads(only_text(result))
    assert error["error"] == "unknown_shipment_prefix"
    assert error["shipment_id"] == "XX42"
    assert error["supported_prefixes"] == list(CARRIERS)


# ------------------------------------------------------------------ estimate_delivery


async def test_estimate_delivery(server: RunningServer) -> None:
    async with session(server) as s:
        there = await s.call_tool(
            "estimate_delivery", {"origin": "上海", "destination": "成都", "weight_kg": 2.5}
        )
        back = await s.call_tool(
            "estimate_delivery", {"origin": "成都", "destination": "上海", "weight_kg": 2.5}
        )
        local = await s.call_tool(
            "estimate_delivery", {"origin": "上海", "destination": "上海", "weight_kg": 1}
        )

    assert there.is_error is False
    estimate = there.structured_content
    assert isinstance(estimate, dict)
    assert estimate == delivery_estimate("上海", "成都", 2.5).model_dump(mode="json")
    assert 2 <= estimate["days"] <= 5
    assert estimate["cost"] > 0
    assert estimate["currency"] == "CNY"
    assert isinstance(back.structured_content, dict)
    assert back.structured_content["days"] == estimate["days"]
    assert back.structured_content["cost"] == estimate["cost"]
    assert local.structured_content == {
        "origin": "上海",
        "destination": "上海",
        "weight_kg": 1.0,
        "service": "same_city",
        "days": 1,
        "cost": 8.0,
        "currency": "CNY",
    }


async def test_estimate_delivery_rejects_bad_weight(server: RunningServer) -> None:
    await reset_stats(server)
    async with session(server) as s:
        result = await s.call_tool(
            "estimate_delivery", {"origin": "北京", "destination": "广州", "weight_kg": -1}
        )
    assert result.is_error is True
    assert "weight_kg" in only_text(result)
    # Rejected by the SDK's argument validation: the tool body never ran.
    assert (await get_stats(server))["estimate_delivery"] == 0


# ------------------------------------------------------------------ counters and health


async def test_call_counter_counts_tool_executions(server: RunningServer) -> None:
    assert await reset_stats(server) == dict.fromkeys(TOOL_NAMES, 0)
    async with session(server) as s:
        await s.list_tools()
        await s.call_tool("track_shipment", {"shipment_id": "YT1"})
        await s.call_tool("track_shipment", {"shipment_id": "BAD"})  # tool error: still ran
        await s.call_tool(
            "estimate_delivery", {"origin": "杭州", "destination": "西安", "weight_kg": 10}
        )
    assert await get_stats(server) == {"track_shipment": 2, "estimate_delivery": 1}
    assert await reset_stats(server) == {"track_shipment": 0, "estimate_delivery": 0}
    assert await get_stats(server) == {"track_shipment": 0, "estimate_delivery": 0}


async def test_high_level_client_in_auto_mode(server: RunningServer) -> None:
    await reset_stats(server)
    async with Client(server.mcp_url) as client:
        result = await client.call_tool("track_shipment", {"shipment_id": "ZT77"})
    assert result.is_error is False
    assert isinstance(result.structured_content, dict)
    assert result.structured_content["carrier"] == CARRIERS["ZT"]
    assert (await get_stats(server))["track_shipment"] == 1


async def test_stateful_sse_mode_works_too() -> None:
    with serve(create_app(stateless=False, json_response=False)) as stateful:
        async with session(stateful) as s:
            ok = await s.call_tool("track_shipment", {"shipment_id": "SF9"})
            bad = await s.call_tool("track_shipment", {"shipment_id": "Q9"})
        assert ok.is_error is False
        assert bad.is_error is True
        assert await get_stats(stateful) == {"track_shipment": 2, "estimate_delivery": 0}


async def test_healthz(server: RunningServer) -> None:
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        response = await http.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "service": "logistics"}
