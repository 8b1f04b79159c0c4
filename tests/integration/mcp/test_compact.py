"""/mcp-compact: at most 14 tools, the rest through the on-demand gateway with the same semantics.

Seed 003: the second MCP endpoint of the same process, same auth, lifecycle and tool
semantics as /mcp. It lists the two lifecycle tools, a few direct business tools and
search_native_tools / describe_native_tool / execute_native_tool; every other native tool is
reached through execute_native_tool. A name that is unknown, directly listed, or never on
MCP is refused through the gateway exactly like an unknown tool.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import MCPError

from gateway.entrypoints.mcp_catalog import COMPACT_DIRECT
from tests.integration.mcp.support import (
    COMPACT,
    GATEWAY_TOOLS,
    LIFECYCLE,
    MCP,
    NEVER_ON_MCP,
    connect,
    finish,
    get_info,
    ok,
    refused,
    start,
)
from tests.support.mesh import RunningMesh

NOT_A_TOOL = "no_such_tool"


async def full_names(mesh: RunningMesh) -> set[str]:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        return {t.name for t in (await client.list_tools()).tools}


async def test_compact_lists_at_most_14_tools(mesh: RunningMesh) -> None:
    natives = await full_names(mesh)
    async with connect(mesh.gateway, mesh.keys["dev"], path=COMPACT) as client:
        assert (
            client.server_info is not None and client.server_info.name == "context-loader-compact"
        )
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert len(tools) <= 14
    direct = natives & set(COMPACT_DIRECT)
    assert {"list_knowledge_networks", "get_kn_detail", "search_schema", "query_object_instance"} <= set(
        COMPACT_DIRECT
    )
    assert set(tools) == LIFECYCLE | direct | set(GATEWAY_TOOLS)
    assert not set(tools) & NEVER_ON_MCP
    for name in direct:
        assert "bkn_context" in tools[name].input_schema["required"], name
    for name in GATEWAY_TOOLS:
        assert "bkn_context" not in tools[name].input_schema.get("properties", {}), name
    info = (await get_info(mesh.gateway, COMPACT, mesh.keys["dev"])).json()
    assert info["tool_count"] == len(tools) and {t["name"] for t in info["tools"]} == set(tools)


async def test_the_gateway_finds_and_describes_the_other_tools(mesh: RunningMesh) -> None:
    natives = await full_names(mesh)
    async with connect(mesh.gateway, mesh.keys["dev"], path=COMPACT) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        everything = ok(await client.call_tool("search_native_tools", {"limit": 100}))
        skills = ok(await client.call_tool("search_native_tools", {"query": "skill", "limit": 1}))
        described = ok(
            await client.call_tool("describe_native_tool", {"name": "get_skill_content"})
        )
    hidden = natives - listed
    assert {"list_skills", "get_skill_content"} <= hidden
    assert {t["name"] for t in everything["tools"]} == hidden
    assert everything["total"] == len(hidden)
    assert len(skills["tools"]) == 1 and skills["total"] >= 2
    assert described["name"] == "get_skill_content"
    schema = described["inputSchema"]
    assert {"kn_id", "skill_id", "bkn_context"} <= set(schema["required"])
    assert set(schema["properties"]["bkn_context"]["required"]) == {
        "conversation_id",
        "interaction_id",
    }


async def test_execute_native_tool_has_the_semantics_of_a_direct_call(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"], path=COMPACT) as client:
        unmanaged = await client.call_tool(
            "execute_native_tool", {"name": "list_skills", "arguments": {"kn_id": "supply_chain"}}
        )
        context = await start(client, "有哪些 Skill")
        through_gateway = ok(
            await client.call_tool(
                "execute_native_tool",
                {
                    "name": "list_skills",
                    "arguments": {"kn_id": "supply_chain", "bkn_context": context},
                },
            )
        )
        content = ok(
            await client.call_tool(
                "execute_native_tool",
                {
                    "name": "get_skill_content",
                    "arguments": {
                        "kn_id": "supply_chain",
                        "skill_id": "skill_fx_report",
                        "bkn_context": context,
                    },
                },
            )
        )
        wrong = await client.call_tool(
            "execute_native_tool",
            {
                "name": "get_skill_content",
                "arguments": {"kn_id": "supply_chain", "bkn_context": context},
            },
        )
        finished = await finish(client, context, "两个 Skill")
    refused(unmanaged, "conversation_required")
    refused(wrong, "invalid_request")
    assert through_gateway["bkn_receipt"]["receipt_status"] == "completed"
    assert content["bkn_receipt"]["receipt_status"] == "completed"
    assert finished["operations"] == 2  # both gateway calls were operations of the interaction

    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        context = await start(client, "有哪些 Skill")
        direct = ok(
            await client.call_tool("list_skills", {"kn_id": "supply_chain", "bkn_context": context})
        )
        await finish(client, context, "两个 Skill")
    through_gateway.pop("bkn_receipt")
    direct.pop("bkn_receipt")
    assert through_gateway == direct


async def unknown_tool_error(client: Any, name: str, arguments: dict[str, Any]) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.call_tool(name, arguments)
    return caught.value


@pytest.mark.parametrize(
    "target",
    [
        NOT_A_TOOL,
        "list_knowledge_networks",
        "bkn_start_interaction",
        "search_native_tools",
        *sorted(NEVER_ON_MCP),
    ],
)
async def test_names_the_gateway_does_not_reach_are_refused_like_unknown_tools(
    mesh: RunningMesh, target: str
) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"], path=COMPACT) as client:
        reference = await unknown_tool_error(client, NOT_A_TOOL, {})
        via_execute = await unknown_tool_error(
            client, "execute_native_tool", {"name": target, "arguments": {}}
        )
        via_describe = await unknown_tool_error(client, "describe_native_tool", {"name": target})
        searched = ok(await client.call_tool("search_native_tools", {"query": target}))
    for error in (via_execute, via_describe):
        assert error.error.code == reference.error.code
        assert error.error.message == reference.error.message.replace(NOT_A_TOOL, target)
        assert error.error.data == {"code": "unknown_tool", "tool": target}
    assert target not in {t["name"] for t in searched["tools"]}


@pytest.mark.parametrize("path", [MCP, COMPACT])
async def test_run_sql_is_an_unknown_tool_on_both_endpoints(mesh: RunningMesh, path: str) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"], path=path) as client:
        reference = await unknown_tool_error(client, NOT_A_TOOL, {})
        for name in sorted(NEVER_ON_MCP):
            error = await unknown_tool_error(client, name, {"kn_id": "supply_chain"})
            assert error.error.code == reference.error.code
            assert error.error.data == {"code": "unknown_tool", "tool": name}


async def test_gateway_tool_arguments_are_checked_against_their_schema(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"], path=COMPACT) as client:
        bad_limit = await client.call_tool("search_native_tools", {"limit": 0})
        bad_arguments = await client.call_tool(
            "execute_native_tool", {"name": "list_skills", "arguments": [1]}
        )
        no_name = await client.call_tool("describe_native_tool", {})
    for result, field in ((bad_limit, "limit"), (bad_arguments, "arguments"), (no_name, "name")):
        envelope = refused(result, "invalid_request")
        assert [d["field"] for d in envelope["details"]] == [field]
