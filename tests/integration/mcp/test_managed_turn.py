"""A managed turn over MCP, refusals as isError results, and the host adapter hints.

start → search_capabilities → execute_tool → finish, each business result carrying JSON
structuredContent (with ``bkn_receipt``) and the same data as TOON text; refusals are
isError results whose structuredContent is the REST envelope. Hints (seed 003):
``openbkn.ai/client-invocation-id`` / ``X-OpenBKN-Client-Invocation-Id`` make a retry reuse
the original Operation / Receipt (different input → idempotency conflict);
``openbkn.ai/host-conversation-key`` / ``X-OpenBKN-Host-Conversation-Key`` map a host's
conversation to one Conversation.
"""

from __future__ import annotations

import json
import uuid

import pytest

from bkn_common.domain.toon import encode_toon
from tests.integration.mcp.support import (
    connect,
    data,
    finance_stats,
    finish,
    fx_call,
    ok,
    refused,
    start,
)
from tests.support.mesh import RunningMesh

INVOCATION_META = "openbkn.ai/client-invocation-id"
HOST_KEY_META = "openbkn.ai/host-conversation-key"
RECEIPT_KEYS = {"receipt_id", "operation_id", "receipt_status", "evidence_durability"}


async def test_a_managed_turn_from_start_to_finish(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        context = await start(client)
        assert context["conversation_id"].startswith("conv_")
        assert context["interaction_id"].startswith("int_")

        searched = await client.call_tool(
            "search_capabilities",
            {"kn_id": "supply_chain", "query": "汇率", "limit": 5, "bkn_context": context},
        )
        found = ok(searched)
        assert found["capabilities"]
        hit = next(c for c in found["capabilities"] if c["capability_id"] == "tool_fx_convert")
        assert hit["owner_id"] == "box_finance" and hit["input_schema"]
        receipt = found["bkn_receipt"]
        assert set(receipt) >= RECEIPT_KEYS
        assert receipt["receipt_status"] == "completed"
        # evidence is written off the caller's path: pending until it is on Kafka
        assert receipt["evidence_durability"] in ("pending", "durable")
        assert receipt["receipt_id"].startswith("rcpt_") and receipt["operation_id"].startswith(
            "op_"
        )
        (text,) = searched.content
        assert text.type == "text"
        assert text.text == encode_toon(found)  # TOON of exactly the structured result
        with pytest.raises(ValueError):
            json.loads(text.text)

        before = finance_stats(mesh)["fx_convert"]
        executed = ok(await client.call_tool("execute_tool", fx_call(context)))
        assert finance_stats(mesh)["fx_convert"] == before + 1
        assert executed["outcome"] == "succeeded" and executed["status_code"] == 200
        assert executed["body"]["converted"] == 72.0
        assert executed["bkn_receipt"]["receipt_status"] == "completed"
        assert executed["bkn_receipt"]["operation_id"] != receipt["operation_id"]

        finished = await finish(client, context)
    assert finished["conversation_id"] == context["conversation_id"]
    assert finished["interaction_id"] == context["interaction_id"]
    assert finished["execution_status"] == "completed"
    assert finished["operations_status"] == "succeeded"
    assert finished["evidence_status"] == "complete"
    assert finished["operations"] == 2


async def test_a_business_call_without_bkn_context_needs_a_conversation(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        result = await client.call_tool(
            "search_capabilities", {"kn_id": "supply_chain", "query": "汇率"}
        )
        before = finance_stats(mesh)["fx_convert"]
        executed = await client.call_tool("execute_tool", fx_call(None))
    envelope = refused(result, "conversation_required")
    assert envelope["required_action"] == "create_conversation"
    assert "bkn_start_interaction" in envelope["message"]
    assert refused(executed, "conversation_required")["required_action"] == "create_conversation"
    assert finance_stats(mesh)["fx_convert"] == before


async def test_a_refusal_is_an_error_result_with_the_envelope(mesh: RunningMesh) -> None:
    before = finance_stats(mesh)["fx_convert"]
    async with connect(
        mesh.gateway, mesh.keys["viewer"], headers={"Accept-Language": "zh-CN"}
    ) as client:
        context = await start(client, "查汇率")
        result = await client.call_tool("execute_tool", fx_call(context))
        await finish(client, context)
    envelope = refused(result, "network_permission_denied")
    assert {"code", "message", "details", "request_id"} <= set(envelope)
    assert envelope["details"]["missing_permission"] == "execute"
    assert envelope["details"]["resource"] == "knowledge_network:supply_chain"
    assert "execute" in envelope["message"] and "supply_chain" in envelope["message"]
    assert finance_stats(mesh)["fx_convert"] == before


@pytest.mark.parametrize("form", ["meta", "header"])
async def test_a_retried_invocation_executes_once_and_returns_the_same_receipt(
    mesh: RunningMesh, form: str
) -> None:
    invocation = f"inv-{uuid.uuid4().hex}"
    meta = {INVOCATION_META: invocation} if form == "meta" else None
    headers = {"X-OpenBKN-Client-Invocation-Id": invocation} if form == "header" else None
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        context = await start(client)
    before = finance_stats(mesh)["fx_convert"]
    results = []
    for _ in range(2):  # a retry over a new connection, as a host adapter would do it
        async with connect(mesh.gateway, mesh.keys["dev"], headers=headers) as client:
            results.append(
                ok(await client.call_tool("execute_tool", fx_call(context, amount=7), meta=meta))
            )
    assert finance_stats(mesh)["fx_convert"] == before + 1
    first, again = results
    assert again["bkn_receipt"] == first["bkn_receipt"]
    assert again["receipt_id"] == first["receipt_id"]
    assert again["body"] == first["body"]

    async with connect(mesh.gateway, mesh.keys["dev"], headers=headers) as client:
        conflict = await client.call_tool("execute_tool", fx_call(context, amount=8), meta=meta)
        await finish(client, context)
    envelope = refused(conflict, "idempotency_conflict")
    assert envelope["details"]["invocation_id"] == invocation
    assert finance_stats(mesh)["fx_convert"] == before + 1


async def test_an_invocation_id_on_start_reuses_the_interaction(mesh: RunningMesh) -> None:
    meta = {INVOCATION_META: f"start-{uuid.uuid4().hex}"}
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        first = await start(client, "同一轮", meta=meta)
        again = await start(client, "同一轮", meta=meta)
        conflict = await client.call_tool(
            "bkn_start_interaction",
            {"question": "另一轮", "agent_name": "mcp-integration", "conversation_mode": "new"},
            meta=meta,
        )
        await finish(client, first)
    assert again == first
    refused(conflict, "idempotency_conflict")


@pytest.mark.parametrize("form", ["meta", "header"])
async def test_a_host_conversation_key_maps_to_one_conversation(
    mesh: RunningMesh, form: str
) -> None:
    key = f"host-thread-{uuid.uuid4().hex}"
    meta = {HOST_KEY_META: key} if form == "meta" else None
    headers = {"X-OpenBKN-Host-Conversation-Key": key} if form == "header" else None
    turns = []
    for question in ("第一轮", "第二轮"):
        async with connect(mesh.gateway, mesh.keys["dev"], headers=headers) as client:
            context = await start(client, question, meta=meta)
            await finish(client, context)
        turns.append(context)
    assert turns[0]["conversation_id"] == turns[1]["conversation_id"]
    assert turns[0]["interaction_id"] != turns[1]["interaction_id"]
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:  # without the key: a new one
        other = await start(client, "无映射")
        await finish(client, other)
    assert other["conversation_id"] != turns[0]["conversation_id"]


async def test_hints_are_not_tool_arguments(mesh: RunningMesh) -> None:
    """Ordinary agents must not submit hints as parameters: the strict input refuses them."""
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        result = await client.call_tool(
            "bkn_start_interaction",
            {
                "question": "q",
                "agent_name": "mcp-integration",
                "conversation_mode": "new",
                "host_conversation_key": "smuggled",
            },
        )
    assert refused(result, "invalid_request")["details"]
    assert data(result)["request_id"]
