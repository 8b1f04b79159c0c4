"""The ontology tools over MCP: listed (explore_subgraph stays REST-only, as seed 003's tool
list has it), managed calls, and permission_guidance at the top level of a refusal."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.integration.mcp.support import connect, data, ok, refused, start
from tests.integration.ontology.helpers import KN
from tests.support.mesh import RunningMesh

ONTOLOGY_ON_MCP = {
    "list_knowledge_networks", "get_kn_detail", "get_object_types", "get_relation_types",
    "search_schema", "query_object_instance", "query_instance_subgraph", "explore_subgraph",
}  # fmt: skip


async def test_ontology_tools_are_listed(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["dev"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= ONTOLOGY_ON_MCP
    schema = tools["query_object_instance"].input_schema
    assert schema["properties"]["limit"]["maximum"] == 10_000
    assert {"kn_id", "ot_id", "bkn_context"} <= set(schema["required"])


async def test_managed_query_with_guidance_receipt_and_evidence(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["analyst"]) as client:
        context = await start(client, "华东有哪些客户？")
        result = await client.call_tool("query_object_instance", {
            "kn_id": KN, "ot_id": "customer", "limit": 3, "bkn_context": context})
        body = ok(result)
    assert len(body["objects"]) == 3
    assert body["permission_guidance"]["resource"]["ot_id"] == "customer"
    assert body["bkn_receipt"]["receipt_status"] == "completed"
    expected = {f"object_instance:{KN}:customer:{o['customer_id']}" for o in body["objects"]}
    evidence = _evidence(mesh, context["interaction_id"], "analyst")
    assert evidence["evidence_type"] == "retrieval"
    assert set(evidence["source_refs"]) == expected
    assert evidence["attributes"]["permission_narrowed"] is True
    assert "华东" not in json.dumps(evidence, ensure_ascii=False)  # references, never values


def _evidence(mesh: RunningMesh, interaction_id: str, account: str) -> dict[str, Any]:
    url = f"/internal/v1/interactions/{interaction_id}"
    deadline = time.monotonic() + 20
    while True:
        with mesh.internal("trace_recorder", account) as client:
            view = client.get(url).json()
        found = [e for op in view.get("operations", []) for e in op["evidence"]]
        if found or time.monotonic() > deadline:
            assert found, view
            return dict(found[0])
        time.sleep(0.2)


async def test_a_refusal_carries_guidance_beside_code_and_details(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["viewer"]) as client:
        context = await start(client, "这些订单发了哪些运单？")
        result = await client.call_tool("query_object_instance", {
            "kn_id": KN, "ot_id": "shipment", "bkn_context": context})
    envelope = refused(result, "OntologyQuery.ObjectType.PermissionDenied")
    assert envelope["permission_guidance"]["shortfalls"][0]["scope"] == "grant"
    assert set(data(result)) >= {"code", "message", "details", "permission_guidance"}
