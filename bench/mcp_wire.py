"""A minimal MCP client on the wire, for measuring what the *server* adds.

The official Python client spends several milliseconds of CPU per call on its own
machinery (transport tasks, memory streams, pydantic models), which a sequential benchmark
counts as latency. To measure the gateway's cost of MCP over REST, both transports are also
driven by the same lean HTTP client (aiohttp): the REST route as a plain JSON POST and MCP
as the JSON-RPC POSTs a Streamable HTTP client sends — the same headers and bodies the
official client sends (captured from it), answered as JSON or as an SSE stream.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import aiohttp

SESSION_FLOW = "2025-11-25"
STATELESS_FLOW = "2026-07-28"
CLIENT_INFO = {"name": "bench-wire", "version": "0.1.0"}


class WireMcpError(RuntimeError):
    pass


def _result(content_type: str, raw: bytes) -> dict[str, Any]:
    """The JSON-RPC message of a POST's answer: a JSON body or the last SSE ``data:`` line."""
    if content_type.startswith("text/event-stream"):
        data = [line[5:].strip() for line in raw.decode().splitlines() if line.startswith("data:")]
        if not data:
            raise WireMcpError(f"SSE answer without data: {raw[:200]!r}")
        message = json.loads(data[-1])
    else:
        message = json.loads(raw)
    if "error" in message:
        raise WireMcpError(str(message["error"]))
    return dict(message["result"])


class WireMcp:
    """One MCP endpoint, session flow (initialize first) or the stateless 2026-07-28 flow."""

    def __init__(self, http: aiohttp.ClientSession, url: str, flow: str) -> None:
        self._http = http
        self._url = url
        self._flow = flow
        self._ids = itertools.count(1)
        self._session_id: str | None = None

    async def __aenter__(self) -> WireMcp:
        if self._flow == SESSION_FLOW:
            await self._initialize()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session_id is not None:
            async with self._http.delete(self._url, headers=self._headers()) as response:
                await response.read()

    def _headers(self, method: str | None = None, name: str | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream",
                   "Content-Type": "application/json"}
        if self._flow == STATELESS_FLOW:
            headers["MCP-Protocol-Version"] = STATELESS_FLOW
            if method:
                headers["Mcp-Method"] = method
            if name:
                headers["Mcp-Name"] = name
        elif self._session_id is not None:
            headers["MCP-Protocol-Version"] = SESSION_FLOW
            headers["Mcp-Session-Id"] = self._session_id
        return headers

    async def _post(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[str, bytes, Any]:
        async with self._http.post(self._url, data=json.dumps(body), headers=headers) as response:
            raw = await response.read()
            if response.status >= 400:
                raise WireMcpError(f"HTTP {response.status}: {raw[:300]!r}")
            return response.headers.get("Content-Type", ""), raw, response.headers

    async def _initialize(self) -> None:
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": "initialize",
                "params": {"protocolVersion": SESSION_FLOW, "capabilities": {},
                           "clientInfo": CLIENT_INFO}}
        content_type, raw, headers = await self._post(body, self._headers())
        _result(content_type, raw)
        self._session_id = headers["Mcp-Session-Id"]
        await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"}, self._headers())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if self._flow == STATELESS_FLOW:
            params["_meta"] = {"io.modelcontextprotocol/protocolVersion": STATELESS_FLOW,
                               "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                               "io.modelcontextprotocol/clientCapabilities": {}}
        body = {"jsonrpc": "2.0", "id": next(self._ids), "method": "tools/call", "params": params}
        content_type, raw, _ = await self._post(body, self._headers("tools/call", name))
        return _result(content_type, raw)
