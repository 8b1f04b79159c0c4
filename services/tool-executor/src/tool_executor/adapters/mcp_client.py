"""Calls tools on registered MCP servers through the official MCP client (Streamable HTTP)."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tool_executor.service_layer.ports import McpToolResult


class McpClient:
    """The :class:`~tool_executor.service_layer.ports.McpUpstream` port over the MCP SDK."""

    async def call_tool(self, url: str, tool: str, arguments: dict[str, Any]) -> McpToolResult:
        """One ``tools/call`` (initialize, call, close). Raises on transport failure."""
        async with (streamable_http_client(url) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            result = await session.call_tool(tool, arguments)
        return McpToolResult(
            is_error=bool(result.is_error),
            content=[c.model_dump(mode="json", exclude_none=True) for c in result.content],
            structured_content=result.structured_content,
        )
