"""The knowledge-base tools over MCP (full and compact): listed, managed, evidence recorded."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.integration.knowledge_base.support import DEMO, wait_revision
from tests.integration.mcp.support import connect, data, ok, start
from tests.support.mesh import RunningMesh

pytestmark = pytest.mark.integration
KB_TOOLS = {"search_files", "read_file", "list_tree", "get_file", "read_related", "expand_graph"}


def _evidence(mesh: RunningMesh, interaction_id: str) -> list[dict[str, Any]]:
    url = f"/internal/v1/interactions/{interaction_id}"
    deadline = time.monotonic() + 90
    while True:
        with mesh.internal("trace_recorder", "dev") as client:
            view = client.get(url).json()
        found = [e for op in view.get("operations", []) for e in op["evidence"]]
        if any(e["attributes"].get("tool") == "read_file" for e in found) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


async def test_managed_search_and_read_record_evidence_of_the_exact_revision(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1)
    async with connect(kb_mesh.gateway, kb_mesh.keys["dev"]) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) >= KB_TOOLS
        assert "bkn_context" in tools["read_file"].input_schema["required"]
        context = await start(client, "How long is the contract renewal notice period?")
        found = ok(await client.call_tool("search_files", {
            "kbId": DEMO, "query": "How long is the contract renewal notice period?", "bkn_context": context}))
        top = found["items"][0]
        assert top["path"] == "pages/legal/contract-renewals.md"
        read = ok(await client.call_tool("read_file", {"kbId": DEMO, "fileId": top["fileId"],
                                                         "bkn_context": context}))
        assert "90 days" in read["content"] and read["bkn_receipt"]["receipt_status"] == "completed"
        both = await client.call_tool("read_file", {"kbId": DEMO, "fileId": top["fileId"],
                                                    "path": top["path"], "bkn_context": context})
        assert both.is_error and data(both)["error"]["code"] == "VALIDATION_ERROR"
        deep = await client.call_tool("expand_graph", {"kbId": DEMO, "fileId": top["fileId"], "depth": 3,
                                                       "bkn_context": context})
        assert deep.is_error and data(deep)["error"]["code"] == "VALIDATION_ERROR"
    evidence = _evidence(kb_mesh, context["interaction_id"])
    reads = [e for e in evidence if e["attributes"].get("tool") == "read_file"]
    assert reads, evidence
    attributes = reads[0]["attributes"]
    import hashlib
    assert attributes["source_file_id"] == top["sourceFileId"]
    assert attributes["path"] == "pages/legal/contract-renewals.md"
    assert attributes["active_content_revision"] == 1
    assert attributes["content_sha256"] == hashlib.sha256(read["content"].encode()).hexdigest()
    assert reads[0]["source_refs"] == [f"knowledge_file:{DEMO}:{top['fileId']}"]


async def test_compact_gateway_reaches_the_tools(kb_mesh: RunningMesh) -> None:
    wait_revision(kb_mesh, DEMO, 1)
    async with connect(kb_mesh.gateway, kb_mesh.keys["dev"], path="/api/agent-retrieval/v1/mcp-compact") as client:
        context = await start(client, "list the handbook")
        listed = ok(await client.call_tool("execute_native_tool", {"name": "list_tree", "arguments": {
            "kbId": DEMO, "parentPath": "pages", "bkn_context": context}}))
        assert any(i["path"] == "pages/hr" for i in listed["items"])
