"""Inputs of search_capabilities and execute_tool (seed 000)."""

from __future__ import annotations

from typing import Any, Literal

from gateway.domain.inputs.base import ToolInput, described


class SearchCapabilitiesInput(ToolInput):
    kn_id: str = described("知识网络 ID；候选集取自该网络的能力绑定。", "Knowledge network id; candidates are its capability bindings.", min_length=1)
    query: str | None = described("可选。在已挂载能力内按名称与说明排序；留空按绑定顺序列出。", "Optional. Ranks mounted capabilities by name and description; empty lists them in binding order.", default=None)
    types: list[Literal["skill", "function", "mcp_tool"]] | None = described("可选。按能力类型收窄（只在挂载集内）。", "Optional. Narrow by capability type (within the mounted set).", default=None)
    metadata_types: list[Literal["openapi", "function"]] | None = described("可选。函数工具再分 openapi 与 function。", "Optional. Split function tools into openapi and function.", default=None)
    owner_id: str | None = described("可选。只看某个工具箱或 MCP Server；传了就不返回 Skill。", "Optional. Only one toolbox or MCP server; skills are then excluded.", default=None)
    limit: int = described("最多返回多少条，1-100，默认 20。", "At most this many results, 1-100, default 20.", default=20, ge=1, le=100)


class ExecuteToolInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    toolbox_id: str = described("工具箱或 MCP Server ID，取自 search_capabilities 的 owner_id。", "Toolbox or MCP server id: owner_id from search_capabilities.", min_length=1)
    tool_id: str = described("工具 ID，取自 search_capabilities 的 capability_id。", "Tool id: capability_id from search_capabilities.", min_length=1)
    arguments: dict[str, Any] = described("工具的业务入参，按 input_schema 填写；传输字段不生效且会被记录。", "The tool's business inputs per its input_schema; transport fields take no effect and are recorded.")
