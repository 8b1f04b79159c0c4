"""Hypothesis drives ``tools/call`` on /mcp for every listed tool with generated arguments.

Per tool: arguments drawn from the tool's own input schema (by Schemathesis's JSON Schema
generator, the tool's schema posing as a request body) and arbitrary JSON objects. Every
answer is HTTP 200 with a JSON-RPC result (never a 5xx, never a
transport error); a refusal is an ``isError`` result whose structured content is the error
envelope (a ``code`` and a ``message``) and whose text is the same envelope.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig

from tests.integration.api_schemas.test_rest_openapi import KB_TOOLS
from tests.integration.mcp.support import MCP, MODERN, rpc_body
from tests.support.mesh import RunningMesh

# per tool and strategy (~30 tools x 2 strategies, about two minutes loaded); 3 drew mostly {}
# and one-key objects, the schema's extremes never
MAX_EXAMPLES = 15
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=8,
)
POSITIVE = SchemathesisConfig.from_dict({"generation": {"mode": "positive"}})
FUZZ = settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None, deadline=None,
                suppress_health_check=list(HealthCheck))


def _post(mesh: RunningMesh, method: str, params: dict[str, Any], name: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {mesh.keys['dev']}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Accept-Language": "en-US"}
    if name is not None:
        headers["Mcp-Name"] = name
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": ENVELOPE}}
    return httpx.post(mesh.gateway + MCP, json=message, headers=headers, timeout=60)


@pytest.fixture(scope="module")
def tools(mesh: RunningMesh) -> dict[str, dict[str, Any]]:
    listed = _post(mesh, "tools/list", {})
    assert listed.status_code == 200
    return {tool["name"]: tool["inputSchema"] for tool in rpc_body(listed)["result"]["tools"]}


def _check(mesh: RunningMesh, name: str, arguments: Any) -> None:
    response = _post(mesh, "tools/call", {"name": name, "arguments": arguments}, name)
    assert response.status_code < 500, (name, arguments, response.text[:500])
    if response.status_code != 200:  # a transport refusal: the envelope, never a bare page
        body = response.json()
        assert isinstance(body, dict) and ("code" in body or "error" in body), (name, arguments, body)
        return
    message = rpc_body(response)
    if "error" in message:  # JSON-RPC level refusal (invalid params): a code and a message
        assert isinstance(message["error"]["code"], int) and message["error"]["message"], message
        return
    result = message["result"]
    if result.get("isError"):
        envelope = result["structuredContent"]
        assert isinstance(envelope.get("code"), str) and envelope["code"], (name, arguments, envelope)
        assert isinstance(envelope.get("message"), str) and envelope["message"], envelope
        assert json.loads(result["content"][0]["text"]) == envelope


@pytest.mark.xfail(strict=True, reason="knowledge-base tools refuse in seed 002's envelope, "
                   "not the mesh's {code, message}")
def test_knowledge_base_refusals_are_the_mesh_envelope(mesh: RunningMesh) -> None:
    _check(mesh, "expand_graph", {})


def test_every_tool_is_fuzzed(tools: dict[str, dict[str, Any]]) -> None:
    assert {"search_capabilities", "execute_tool", "bkn_start_interaction"} <= set(tools)


@pytest.mark.parametrize("strategy", ["schema", "arbitrary"])
def test_tools_call_with_generated_arguments(
    mesh: RunningMesh, tools: dict[str, dict[str, Any]], strategy: str
) -> None:
    for name, input_schema in sorted(tools.items()):
        if name in KB_TOOLS:
            continue
        arguments = (schema_arguments(name, input_schema) if strategy == "schema"
                     else st.dictionaries(st.sampled_from([*input_schema.get("properties", {}), "x"]), JSON,
                                          max_size=4))

        _fuzz(mesh, name, arguments)


def schema_arguments(name: str, input_schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of ``input_schema``: the schema as the JSON body of a one-operation document."""
    body = json.loads(json.dumps(input_schema).replace('"#/$defs/', '"#/components/schemas/'))
    document = {
        "openapi": "3.1.0", "info": {"title": name, "version": "1"},
        "paths": {"/call": {"post": {
            "requestBody": {"required": True, "content": {"application/json": {"schema": body}}},
            "responses": {"200": {"description": "ok"}},
        }}},
        "components": {"schemas": body.pop("$defs", {})},
    }
    operation = schemathesis.openapi.from_dict(document, config=POSITIVE)["/call"]["POST"]
    return operation.as_strategy().map(lambda case: case.body)


def _fuzz(mesh: RunningMesh, name: str, arguments: st.SearchStrategy[Any]) -> None:
    @FUZZ
    @given(arguments)
    def call(generated: Any) -> None:
        _check(mesh, name, generated)

    call()
