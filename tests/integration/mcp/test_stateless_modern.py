"""The 2026-07-28 flow: no initialize, no session; every request stands on its own."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from tests.integration.mcp.support import (
    COMPACT,
    MCP,
    MODERN,
    connect,
    ok,
    raw_post,
    rpc_body,
    start,
)
from tests.support.mesh import RunningMesh

ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def modern_message(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**params, "_meta": ENVELOPE},
    }


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


@pytest.mark.parametrize("path", [MCP, COMPACT])
async def test_official_client_in_auto_mode_speaks_2026_without_a_handshake(
    mesh: RunningMesh, path: str
) -> None:
    sent: list[tuple[str, str | None, dict[str, Any] | None, str | None]] = []

    def record(response: httpx2.Response) -> None:
        request = response.request
        body = json.loads(request.content) if request.content else None
        assert response.status_code == 200, (response.status_code, body)
        sent.append(
            (
                request.method,
                request.headers.get("mcp-protocol-version"),
                body,
                response.headers.get("mcp-session-id"),
            )
        )

    async with connect(
        mesh.gateway, mesh.keys["dev"], path=path, mode="auto", on_response=record
    ) as client:
        assert client.protocol_version == MODERN
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"bkn_start_interaction", "get_kn_detail"} <= names
        context = await start(client, "汇率工具有哪些")
        arguments = {"kn_id": "supply_chain", "query": "汇率", "limit": 3, "bkn_context": context}
        if "search_capabilities" in names:
            called = await client.call_tool("search_capabilities", arguments)
        else:  # the compact endpoint reaches it through its on-demand gateway
            called = await client.call_tool(
                "execute_native_tool", {"name": "search_capabilities", "arguments": arguments}
            )
        found = ok(called)
        assert found["capabilities"]
        assert found["bkn_receipt"]["receipt_status"] == "completed"

    methods = [body["method"] for _, _, body, _ in sent if body and "method" in body]
    assert "initialize" not in methods
    assert {"tools/list", "tools/call"} <= set(methods)
    assert all(version == MODERN for _, version, _, _ in sent)
    assert all(issued is None for _, _, _, issued in sent)  # no session was ever issued
    assert all(method == "POST" for method, _, _, _ in sent)  # and none needed ending


def test_raw_posts_without_initialize(mesh: RunningMesh) -> None:
    url, key = mesh.gateway + MCP, mesh.keys["dev"]
    listed = raw_post(url, key, modern_message(1, "tools/list", {}), **modern_headers("tools/list"))
    assert listed.status_code == 200
    assert "mcp-session-id" not in listed.headers
    names = {t["name"] for t in rpc_body(listed)["result"]["tools"]}
    assert "bkn_start_interaction" in names

    started = raw_post(
        url,
        key,
        modern_message(
            2,
            "tools/call",
            {
                "name": "bkn_start_interaction",
                "arguments": {
                    "question": "无握手",
                    "agent_name": "mcp-integration",
                    "conversation_mode": "new",
                },
            },
        ),
        **modern_headers("tools/call", "bkn_start_interaction"),
    )
    assert started.status_code == 200
    result = rpc_body(started)["result"]
    assert result["isError"] is False
    context = {k: result["structuredContent"][k] for k in ("conversation_id", "interaction_id")}

    searched = raw_post(
        url,
        key,
        modern_message(
            3,
            "tools/call",
            {
                "name": "search_capabilities",
                "arguments": {"kn_id": "supply_chain", "query": "汇率", "bkn_context": context},
            },
        ),
        **modern_headers("tools/call", "search_capabilities"),
    )
    assert searched.status_code == 200
    found = rpc_body(searched)["result"]
    assert found["isError"] is False
    assert found["structuredContent"]["bkn_receipt"]["receipt_id"]
    assert found["content"][0]["type"] == "text"


def test_an_unknown_session_id_on_a_modern_request_is_still_404(mesh: RunningMesh) -> None:
    """No session is needed, but one that is sent is checked."""
    response = raw_post(
        mesh.gateway + MCP,
        mesh.keys["dev"],
        modern_message(1, "tools/list", {}),
        **modern_headers("tools/list"),
        **{"Mcp-Session-Id": "0" * 32},
    )
    assert response.status_code == 404
