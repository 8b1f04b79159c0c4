"""Helpers for the MCP integration tests: the official client over real HTTP, extra gateways.

Every MCP conversation here goes through the official SDK (``mcp.Client`` on the
Streamable HTTP transport, httpx2 underneath); raw HTTP is used only where a status code,
a header or the absence of the handshake is the thing under test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from pathlib import Path
from typing import Any

import devmesh
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from tests.support.mesh import RunningMesh

API = "/api/agent-retrieval/v1"
MCP = f"{API}/mcp"
COMPACT = f"{API}/mcp-compact"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"

LIFECYCLE = frozenset({"bkn_start_interaction", "bkn_finish_interaction"})
# Business tools the seeds name (seed 003's list plus explore_subgraph, and seed 002's knowledge-base tools).
SPEC_BUSINESS = frozenset(
    {
        "search_schema",
        "query_object_instance",
        "query_instance_subgraph",
        "explore_subgraph",
        "get_logic_properties_values",
        "get_action_info",
        "execute_action",
        "get_action_execution",
        "list_action_executions",
        "list_knowledge_networks",
        "get_kn_detail",
        "get_object_types",
        "get_relation_types",
        "list_skills",
        "get_skill_content",
        "read_skill_file",
        "search_capabilities",
        "execute_tool",
        # seed 002: the knowledge-base tools
        "search_files",
        "read_file",
        "list_tree",
        "get_file",
        "read_related",
        "expand_graph",
    }
)
NEVER_ON_MCP = frozenset({"run_sql", "list_resources", "describe_resource"})
GATEWAY_TOOLS = ("search_native_tools", "describe_native_tool", "execute_native_tool")

FX_ARGS = {"amount": 10, "from": "USD", "to": "CNY"}

ResponseHook = Callable[[httpx2.Response], None]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@asynccontextmanager
async def connect(
    base_url: str,
    key: str,
    *,
    path: str = MCP,
    mode: str = "legacy",
    headers: dict[str, str] | None = None,
    on_response: ResponseHook | None = None,
    transport: httpx2.AsyncBaseTransport | None = None,
) -> AsyncIterator[Client]:
    """An official MCP client session (``legacy``: initialize; ``auto``: 2026 discover)."""
    hooks: dict[str, list[Any]] = {}
    if on_response is not None:
        observe = on_response

        async def hook(response: httpx2.Response) -> None:
            observe(response)

        hooks["response"] = [hook]
    http = httpx2.AsyncClient(
        headers={**bearer(key), **(headers or {})},
        timeout=60,
        event_hooks=hooks,
        transport=transport,
    )
    session = Client(streamable_http_client(base_url + path, http_client=http), mode=mode)
    async with http, session as client:
        yield client


async def get_info(base_url: str, path: str, key: str | None) -> httpx.Response:
    """GET <endpoint>/info (no MCP handshake)."""
    async with httpx.AsyncClient(timeout=10) as http:
        return await http.get(f"{base_url}{path}/info", headers=bearer(key) if key else {})


def data(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return dict(result.structured_content)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    return data(result)


def refused(result: CallToolResult, code: str) -> dict[str, Any]:
    assert result.is_error, result.structured_content
    envelope = data(result)
    assert envelope["code"] == code, envelope
    assert isinstance(envelope["message"], str) and envelope["message"]
    assert json.loads(result.content[0].text) == envelope  # type: ignore[union-attr]
    return envelope


async def start(
    client: Client,
    question: str = "把 10 美元换算成人民币",
    *,
    meta: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, str]:
    """bkn_start_interaction (a new conversation unless ``extra`` says otherwise) → bkn_context."""
    arguments = {
        "question": question,
        "agent_name": "mcp-integration",
        "conversation_mode": "new",
        **extra,
    }
    started = ok(await client.call_tool("bkn_start_interaction", arguments, meta=meta))
    return {
        "conversation_id": started["conversation_id"],
        "interaction_id": started["interaction_id"],
    }


async def finish(client: Client, context: dict[str, str], answer: str = "72 元") -> dict[str, Any]:
    return ok(
        await client.call_tool(
            "bkn_finish_interaction", {**context, "outcome": "completed", "answer": answer}
        )
    )


def fx_call(context: dict[str, str] | None, **arguments: Any) -> dict[str, Any]:
    call: dict[str, Any] = {
        "kn_id": "supply_chain",
        "toolbox_id": "box_finance",
        "tool_id": "tool_fx_convert",
        "arguments": {**FX_ARGS, **arguments},
    }
    if context is not None:
        call["bkn_context"] = context
    return call


def finance_stats(mesh: RunningMesh) -> dict[str, int]:
    response = httpx.get(mesh.url("finance_api").removesuffix("/mcp") + "/_stats", timeout=10)
    response.raise_for_status()
    return dict(response.json())


def raw_post(url: str, key: str, message: dict[str, Any], **headers: str) -> httpx.Response:
    """One JSON-RPC message over plain HTTP (the response may be JSON or one SSE event)."""
    return httpx.post(
        url,
        json=message,
        timeout=30,
        headers={
            **bearer(key),
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )


def rpc_body(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [
            line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")
        ]
        return dict(json.loads(events[-1]))
    return dict(response.json())


def initialize_message(request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }


@contextmanager
def gateway_process(
    mesh: RunningMesh,
    port: int,
    extra_env: dict[str, str] | None = None,
    name: str = "gateway-extra",
) -> Iterator[str]:
    """Another ``python -m gateway`` for the same mesh (same Redis prefix and services)."""
    env = {**mesh.layout.env(), "GATEWAY_PORT": str(port), **(extra_env or {})}
    log_path = Path(mesh.layout.run_dir) / "logs" / f"{name}-{port}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        child = subprocess.Popen(
            [str(devmesh.BIN / "python"), "-m", "gateway"],
            env=env,
            cwd=devmesh.ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                    break
            if child.poll() is not None:
                raise RuntimeError(f"{name} exited; see {log_path}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} not ready on {url}; see {log_path}")
            time.sleep(0.2)
        yield url
    finally:
        with suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGTERM)
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=5)
