"""Agents written for the upstream Context Loader work unchanged (issue 18).

* Every tool both catalogues define accepts every upstream property, and requires nothing
  beyond the upstream's required list plus the seeds' additions (facts: the fixture
  ``tests/fixtures/upstream_mcp_tools.json``, which names where they come from).
* A managed turn driven only with the upstream's argument names, over MCP.
* ``response_format`` picks the text content's format on MCP (TOON by default).
* run_sql, list_resources and describe_resource are on no MCP surface in any form.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import MCPError

from bkn_common.domain.toon import encode_toon
from tests.integration.mcp.support import (
    COMPACT,
    MCP,
    NEVER_ON_MCP,
    connect,
    get_info,
    ok,
    start,
)
from tests.support.mesh import RunningMesh

FIXTURE = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "upstream_mcp_tools.json").read_text()
)
UPSTREAM: dict[str, dict[str, Any]] = FIXTURE["tools"]
KN = "supply_chain"


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with a local ``$ref`` (or the first ref of an anyOf) followed."""
    for option in node.get("anyOf", []):
        if "$ref" in option or option.get("type") == "array":
            node = option
            break
    ref = node.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        return dict(schema["$defs"][name])
    return node


async def _catalog(mesh: RunningMesh) -> dict[str, dict[str, Any]]:
    response = await get_info(mesh.gateway, MCP, mesh.keys["dev"])
    assert response.status_code == 200, response.text
    return {t["name"]: t for t in response.json()["tools"]}


async def test_every_upstream_property_is_accepted_and_nothing_more_is_required(
    mesh: RunningMesh,
) -> None:
    tools = await _catalog(mesh)
    additions = FIXTURE["seed_additions"]
    for name, facts in UPSTREAM.items():
        assert name in tools, f"{name} is not on /mcp/info"
        schema = tools[name]["inputSchema"]
        properties = schema["properties"]
        missing = [p for p in facts["properties"] if p not in properties]
        assert not missing, f"{name} does not accept upstream {missing}"
        for path, nested in facts.get("nested", {}).items():
            node = _resolve(schema, properties[path.removesuffix("[]")])
            if path.endswith("[]"):
                node = _resolve(schema, node["items"])
            absent = [p for p in nested if p not in node["properties"]]
            assert not absent, f"{name}.{path} does not accept upstream {absent}"
        allowed = {*facts["required"], "kn_id", *additions.get(name, [])}
        if name not in ("bkn_start_interaction", "bkn_finish_interaction"):
            allowed |= set(additions["all_business_tools"])
        extra = sorted(set(schema.get("required", [])) - allowed)
        assert not extra, f"{name} requires {extra} beyond the upstream's required list"
        assert properties["response_format"]["enum"] == ["json", "toon"]


async def test_lifecycle_output_schemas_use_the_upstream_vocabulary(mesh: RunningMesh) -> None:
    tools = await _catalog(mesh)
    started = tools["bkn_start_interaction"]["outputSchema"]["properties"]
    assert started["execution_status"]["enum"] == ["active"]
    finished = tools["bkn_finish_interaction"]["outputSchema"]["properties"]
    assert set(finished["execution_status"]["enum"]) == {
        "completed", "failed", "canceled", "handed_off", "abandoned"}
    assert set(finished["evidence_status"]["enum"]) == {
        "not_applicable", "assembling", "complete", "partial", "failed"}


async def test_a_managed_turn_with_the_upstream_argument_names(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        started = ok(await client.call_tool("bkn_start_interaction", {
            "question": "结算一张美元采购订单", "agent_name": "upstream-agent",
            "conversation_mode": "new"}))
        assert started["execution_status"] == "active"
        context = {k: started[k] for k in ("conversation_id", "interaction_id")}
        schema = ok(await client.call_tool("search_schema", {
            "kn_id": KN, "query": "采购订单 供应商", "include_columns": True,
            "search_scope": {"include_metric_types": False}, "bkn_context": context}))
        order_type = next(t for t in schema["object_types"] if t["id"] == "purchase_order")
        assert order_type["data_source"]["id"] == "res_purchase_orders"
        assert {p["column"] for p in order_type["properties"]} >= {"po_id", "amount"}
        assert "metrics" not in schema
        orders = ok(await client.call_tool("query_object_instance", {
            "kn_id": KN, "ot_id": "purchase_order", "limit": 1,
            "filters": [{"field": "currency", "op": "==", "value": "USD"},
                        {"field": "settled", "op": "==", "value": False}],
            "bkn_context": context}))
        [order] = orders["objects"]
        assert order["currency"] == "USD" and order["settled"] is False
        submitted = ok(await client.call_tool("execute_action", {
            "kn_id": KN, "at_id": "act_settle_po",
            "_instance_identities": [order["_instance_identity"]],
            "dynamic_params": {"X-Settlement-Channel": "upstream"}, "bkn_context": context}))
        assert submitted["execution_id"].startswith("aex_") and submitted["target_count"] == 1
        finished = ok(await client.call_tool("bkn_finish_interaction", {
            "interaction_id": context["interaction_id"], "outcome": "completed",
            "answer": "已提交结算"}))
        assert finished["conversation_id"] == context["conversation_id"]
        assert (finished["execution_status"], finished["evidence_status"]) == (
            "completed", "complete")
        assert finished["operations"] == 3
        # the turn is closed: the next turn of the same conversation starts
        again = await start(client, "下一轮", conversation_mode="continue",
                            conversation_id=context["conversation_id"])
        assert again["conversation_id"] == context["conversation_id"]
        closed = ok(await client.call_tool("bkn_finish_interaction", {
            "interaction_id": again["interaction_id"], "outcome": "cancelled",
            "reason": "test", "partial_reasons": ["trace_call_unrecorded:x:y"]}))
        assert (closed["execution_status"], closed["evidence_status"]) == ("canceled", "partial")


async def test_response_format_picks_the_text_content(mesh: RunningMesh) -> None:
    arguments = {"kn_id": KN, "ot_id": "warehouse", "limit": 3}
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        context = await start(client)
        default = await client.call_tool("query_object_instance",
                                         {**arguments, "bkn_context": context})
        as_json = await client.call_tool("query_object_instance", {
            **arguments, "bkn_context": context, "response_format": "json"})
        as_toon = await client.call_tool("query_object_instance", {
            **arguments, "bkn_context": context, "response_format": "toon"})
        bad = await client.call_tool("query_object_instance", {
            **arguments, "bkn_context": context, "response_format": "xml"})
    for result in (default, as_toon):
        assert result.content[0].text == encode_toon(result.structured_content)
    assert json.loads(as_json.content[0].text) == as_json.structured_content
    assert bad.is_error and bad.structured_content["code"] == "invalid_request"


@pytest.mark.parametrize("path", [MCP, COMPACT])
async def test_the_data_tools_are_on_no_mcp_surface(mesh: RunningMesh, path: str) -> None:
    info = await get_info(mesh.gateway, path, mesh.keys["dev"])
    assert not NEVER_ON_MCP & {t["name"] for t in info.json()["tools"]}
    async with connect(mesh.gateway, mesh.keys["dev"], path=path) as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert not NEVER_ON_MCP & listed
        context = await start(client)
        for name in sorted(NEVER_ON_MCP):
            arguments = {"sql": "SELECT 1 FROM {{.res_suppliers}}", "resource_id": "res_suppliers",
                         "bkn_context": context}
            calls = [(name, arguments)] if path == MCP else [
                ("execute_native_tool", {"name": name, "arguments": arguments}),
                ("describe_native_tool", {"name": name})]
            for tool, args in calls:
                with pytest.raises(MCPError) as caught:
                    await client.call_tool(tool, args)
                assert caught.value.error.data == {"code": "unknown_tool", "tool": name}
        if path == COMPACT:
            found = ok(await client.call_tool("search_native_tools", {"query": "sql resource"}))
            assert not NEVER_ON_MCP & {t["name"] for t in found["tools"]}
