"""Capability tools of the gateway (seed 000): ``search_capabilities`` and ``execute_tool``."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.capabilities import ExecuteToolInput, SearchCapabilitiesInput
from gateway.service_layer import capabilities
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "search_capabilities": {
        "zh-CN": "在一个排序空间里检索知识网络已挂载、当前可用的能力（Skill、函数工具、API 工具、MCP 工具混排）。tool 类命中带裁剪后的 input_schema，用 execute_tool 调用；skill 用 get_skill_content 读取。",
        "en-US": "Search, in one ranking, the capabilities mounted on a knowledge network and currently usable (skills, function tools, API tools, MCP tools). Tool hits carry a trimmed input_schema for execute_tool; read skills with get_skill_content.",
    },
    "execute_tool": {
        "zh-CN": "以知识网络托管代理执行已挂载的工具，返回工具原始响应。有不可回滚的副作用：调用前先读 search_capabilities 返回的 description 与 use_rule。工具自身报错同样返回 200。",
        "en-US": "Run a mounted tool through the knowledge network's hosted proxy and return the tool's raw response. Side effects cannot be undone: read description and use_rule from search_capabilities first. The tool's own errors also return 200.",
    },
}  # fmt: skip


def capability_tools() -> list[ToolDefinition]:
    d = DESCRIPTIONS
    return [
        ToolDefinition("search_capabilities", SearchCapabilitiesInput, d["search_capabilities"],
                       capabilities.search_capabilities, evidence=capabilities.search_evidence),
        ToolDefinition("execute_tool", ExecuteToolInput, d["execute_tool"],
                       capabilities.execute_tool, kind="execution",
                       evidence=capabilities.execution_evidence,
                       rest_body=lambda outcome: outcome.get("body")),
    ]
