"""MCP on /mcp: the handshake and its session, tools/list, languages, auth, Origin, /info.

Seed 003: Streamable HTTP at /api/agent-retrieval/v1/mcp, initialize → tools/list →
tools/call; authentication as REST; run_sql / list_resources / describe_resource never on
MCP; execute_skill only with EXECUTE_SKILL_ENABLED=true; business tools declare and require
bkn_context; GET /mcp/info gives the whole catalogue without a handshake.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import httpx2
import pytest

from gateway.service_layer.catalog import build_registry
from gateway.settings import GatewaySettings
from tests.integration.mcp.support import (
    COMPACT,
    LEGACY,
    LIFECYCLE,
    MCP,
    MODERN,
    NEVER_ON_MCP,
    SPEC_BUSINESS,
    bearer,
    connect,
    data,
    gateway_process,
    get_info,
    initialize_message,
    ok,
    raw_post,
    refused,
    rpc_body,
    start,
)
from tests.support.mesh import RunningMesh

CJK = re.compile(r"[\u4e00-\u9fff]")
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def registered_names(execute_skill: bool) -> set[str]:
    """What the gateway's registry holds for MCP (minus what may never be on MCP)."""
    registry = build_registry(GatewaySettings(execute_skill_enabled=execute_skill))
    return {t.name for t in registry.mcp_tools()} - NEVER_ON_MCP


@pytest.fixture(scope="module")
def skills_gateway(mesh: RunningMesh, spare_port: Callable[[], int]) -> Iterator[str]:
    """A second gateway of the same mesh with the execute_skill switch on."""
    with gateway_process(
        mesh, spare_port(), {"EXECUTE_SKILL_ENABLED": "true"}, "gateway-skills"
    ) as url:
        yield url


def session_id_of(mesh: RunningMesh, path: str = MCP, account: str = "dev") -> str:
    response = raw_post(mesh.gateway + path, mesh.keys[account], initialize_message())
    assert response.status_code == 200, response.text
    session = response.headers.get("mcp-session-id")
    assert session, dict(response.headers)
    return session


def with_session(
    mesh: RunningMesh, session: str, path: str = MCP, account: str = "dev"
) -> httpx.Response:
    return raw_post(
        mesh.gateway + path,
        mesh.keys[account],
        LIST_TOOLS,
        **{"Mcp-Session-Id": session, "MCP-Protocol-Version": LEGACY},
    )


def delete(
    mesh: RunningMesh, session: str, path: str = MCP, account: str = "dev"
) -> httpx.Response:
    return httpx.delete(
        mesh.gateway + path,
        timeout=10,
        headers={**bearer(mesh.keys[account]), "Mcp-Session-Id": session},
    )


# --- the handshake and its session ---------------------------------------------------------


async def test_initialize_issues_a_session_every_later_request_carries(mesh: RunningMesh) -> None:
    exchanges: list[tuple[str, int, str | None, str | None]] = []

    def record(response: httpx2.Response) -> None:
        exchanges.append(
            (
                response.request.method,
                response.status_code,
                response.request.headers.get("mcp-session-id"),
                response.headers.get("mcp-session-id"),
            )
        )

    async with connect(mesh.gateway, mesh.keys["dev"], on_response=record) as client:
        assert client.protocol_version == LEGACY
        assert client.server_info is not None and client.server_info.name == "context-loader-full"
        assert client.instructions and "bkn_start_interaction" in client.instructions
        listed = await client.list_tools()
        assert listed.tools
        ok(
            await client.call_tool(
                "bkn_start_interaction",
                {
                    "question": "会话流程",
                    "agent_name": "mcp-integration",
                    "conversation_mode": "new",
                },
            )
        )

    method, status, sent, issued = exchanges[0]
    assert (method, status, sent) == ("POST", 200, None)
    assert issued and re.fullmatch(r"[0-9a-f]{32}", issued)
    later = exchanges[1:]
    assert later and all(sent == issued for _, _, sent, _ in later), exchanges
    assert all(200 <= status < 300 for _, status, _, _ in later), exchanges
    assert later[-1][0] == "DELETE"  # the client ended its session on exit
    gone = with_session(mesh, issued)
    assert gone.status_code == 404
    assert rpc_body(gone)["error"]["code"] == -32001


def test_unknown_session_id_is_404(mesh: RunningMesh) -> None:
    response = with_session(mesh, uuid.uuid4().hex)
    assert response.status_code == 404
    assert rpc_body(response)["error"]["message"] == "Session not found"


def test_delete_ends_the_session(mesh: RunningMesh) -> None:
    session = session_id_of(mesh)
    alive = with_session(mesh, session)
    assert alive.status_code == 200
    assert rpc_body(alive)["result"]["tools"]
    assert delete(mesh, session).status_code == 200
    assert with_session(mesh, session).status_code == 404
    assert delete(mesh, session).status_code == 404


def test_a_session_belongs_to_its_caller_and_endpoint(mesh: RunningMesh) -> None:
    session = session_id_of(mesh)
    assert with_session(mesh, session, account="viewer").status_code == 404
    assert with_session(mesh, session, path=COMPACT).status_code == 404
    assert delete(mesh, session, account="viewer").status_code == 404
    assert delete(mesh, session, path=COMPACT).status_code == 404
    assert with_session(mesh, session).status_code == 200  # still the owner's
    assert delete(mesh, session).status_code == 200


# --- tools/list ----------------------------------------------------------------------------


async def test_tools_list_is_lifecycle_plus_registered_business_tools(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        names = [t.name for t in (await client.list_tools()).tools]
    assert len(names) == len(set(names))
    assert set(names) == registered_names(execute_skill=False)
    assert set(names) >= LIFECYCLE
    assert set(names) - LIFECYCLE <= SPEC_BUSINESS
    assert {"search_capabilities", "execute_tool"} <= set(names)
    assert not set(names) & (NEVER_ON_MCP | {"execute_skill"})


async def test_business_tools_declare_and_require_bkn_context(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        schema = tool.input_schema
        if tool.name in LIFECYCLE:
            assert "bkn_context" not in schema.get("properties", {}), tool.name
            continue
        context = schema["properties"]["bkn_context"]
        assert "bkn_context" in schema["required"], tool.name
        assert context["type"] == "object"
        assert set(context["required"]) == {"conversation_id", "interaction_id"}
        assert set(context["properties"]) == {"conversation_id", "interaction_id"}


async def test_descriptions_follow_accept_language(mesh: RunningMesh) -> None:
    described: dict[str, dict[str, Any]] = {}
    for language in ("zh-CN", "en-US"):
        async with connect(
            mesh.gateway, mesh.keys["dev"], headers={"Accept-Language": language}
        ) as client:
            described[language] = {t.name: t for t in (await client.list_tools()).tools}
    zh, en = described["zh-CN"], described["en-US"]
    assert set(zh) == set(en)
    for name in zh:
        assert zh[name].description != en[name].description, name
        assert CJK.search(zh[name].description or ""), name
        assert not CJK.search(en[name].description or ""), name
    question_zh = zh["bkn_start_interaction"].input_schema["properties"]["question"]["description"]
    question_en = en["bkn_start_interaction"].input_schema["properties"]["question"]["description"]
    assert CJK.search(question_zh) and not CJK.search(question_en)


async def test_execute_skill_is_absent_by_default(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        context = await start(client)
        with pytest.raises(Exception, match="Unknown tool execute_skill"):
            await client.call_tool(
                "execute_skill",
                {"kn_id": "supply_chain", "skill_id": "skill_fx_report", "bkn_context": context},
            )
    assert "execute_skill" not in names
    info = (await get_info(mesh.gateway, MCP, mesh.keys["dev"])).json()
    assert "execute_skill" not in {t["name"] for t in info["tools"]}
    rest = mesh.call("execute_skill", {"kn_id": "supply_chain", "skill_id": "skill_fx_report"})
    assert rest.status_code == 404 and rest.json()["code"] == "unknown_tool"


async def test_execute_skill_appears_when_enabled(mesh: RunningMesh, skills_gateway: str) -> None:
    async with connect(skills_gateway, mesh.keys["dev"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == registered_names(execute_skill=True)
        assert "execute_skill" in tools
        assert "bkn_context" in tools["execute_skill"].input_schema["required"]
        assert not set(tools) & NEVER_ON_MCP
        context = await start(client, "出汇率月报")
        ran = ok(
            await client.call_tool(
                "execute_skill",
                {
                    "kn_id": "supply_chain",
                    "skill_id": "skill_fx_report",
                    "args": [],
                    "bkn_context": context,
                },
            )
        )
    assert ran["exit_code"] == 0 and "USD" in ran["stdout"]
    assert ran["bkn_receipt"]["receipt_status"] == "completed"
    info = (await get_info(skills_gateway, MCP, mesh.keys["dev"])).json()
    assert "execute_skill" in {t["name"] for t in info["tools"]}


# --- authentication and Origin ---------------------------------------------------------------


@pytest.mark.parametrize("path", [MCP, COMPACT])
@pytest.mark.parametrize("authorization", [None, "Bearer bak_not-a-real-key", "Basic abc"])
def test_missing_or_invalid_bearer_is_401_with_envelope(
    mesh: RunningMesh, path: str, authorization: str | None
) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Accept-Language": "zh-CN"}
    if authorization:
        headers["Authorization"] = authorization
    response = httpx.post(
        mesh.gateway + path, json=initialize_message(), headers=headers, timeout=10
    )
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    body = response.json()
    assert body["code"] == "unauthenticated"
    assert "未认证" in body["message"]
    assert body["request_id"] == response.headers["bkn-request-id"]
    assert "mcp-session-id" not in response.headers


def test_disallowed_origin_is_403(mesh: RunningMesh) -> None:
    response = raw_post(
        mesh.gateway + MCP, mesh.keys["dev"], initialize_message(), Origin="http://evil.example"
    )
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "origin_not_allowed"
    assert "http://evil.example" in body["message"]
    assert "mcp-session-id" not in response.headers
    local = raw_post(
        mesh.gateway + MCP, mesh.keys["dev"], initialize_message(), Origin="http://localhost:6274"
    )
    assert local.status_code == 200


async def test_invalid_invocation_id_header_is_a_refusal_not_a_protocol_error(
    mesh: RunningMesh,
) -> None:
    async with connect(
        mesh.gateway, mesh.keys["dev"], headers={"X-OpenBKN-Client-Invocation-Id": "has spaces"}
    ) as client:
        result = await client.call_tool(
            "bkn_start_interaction",
            {"question": "q", "agent_name": "mcp-integration", "conversation_mode": "new"},
        )
    refused(result, "invalid_invocation_id")
    assert data(result)["request_id"]


# --- GET /mcp/info ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [MCP, COMPACT])
async def test_info_is_the_whole_catalog_without_a_handshake(
    mesh: RunningMesh, path: str
) -> None:
    response = await get_info(mesh.gateway, path, mesh.keys["dev"])
    assert response.status_code == 200
    assert "mcp-session-id" not in response.headers
    info = response.json()
    assert info["url"] == mesh.gateway + path
    assert info["transport"] == "streamable-http"
    assert MODERN in info["protocol_versions"]
    assert info["tool_count"] == len(info["tools"])
    servers = info["client_config"]["mcpServers"]
    assert len(servers) == 1
    (server,) = servers.values()
    assert server["url"] == mesh.gateway + path
    assert server["type"] == "streamable-http"
    assert server["headers"]["Authorization"].startswith("Bearer ")
    async with connect(mesh.gateway, mesh.keys["dev"], path=path) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert [t["name"] for t in info["tools"]] == list(listed)
    for tool in info["tools"]:
        assert tool["inputSchema"] == listed[tool["name"]].input_schema
        assert tool["outputSchema"]["type"] == "object"
        assert tool["description"] == listed[tool["name"]].description
    unauthenticated = await get_info(mesh.gateway, path, None)
    assert unauthenticated.status_code == 401
