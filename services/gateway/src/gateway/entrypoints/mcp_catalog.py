"""What each MCP endpoint publishes: the full catalogue (/mcp) and the compact one (/mcp-compact).

Input schemas come from the same pydantic models as REST, localized, with ``bkn_context``
declared and required on business tools. The compact endpoint adds an on-demand gateway
(search / describe / execute a native tool) that reaches every other tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

from pydantic import Field

from bkn_common.contracts import json_codec
from bkn_common.contracts.i18n import Language
from bkn_common.domain.toon import encode_toon
from gateway.domain.context import RESPONSE_FORMATS, ResponseFormat
from gateway.domain.inputs.base import ToolInput, described, localized_schema
from gateway.service_layer.registry import ToolDefinition, ToolRegistry

Endpoint = Literal["full", "compact"]

COMPACT_DIRECT = (
    "list_knowledge_networks", "get_kn_detail", "search_schema", "query_object_instance",
)
COMPACT_LIMIT = 14
NEVER_ON_MCP = frozenset({"run_sql", "list_resources", "describe_resource"})
# The text content of an MCP answer is TOON unless the call asks for json: the upstream's
# default, and the cheaper one in tokens (bench/toon_size.py measures both on MCP answers).
MCP_DEFAULT_RESPONSE_FORMAT: ResponseFormat = "toon"
RESPONSE_FORMAT_SCHEMA: dict[str, Any] = {
    "type": "string", "enum": list(RESPONSE_FORMATS), "default": MCP_DEFAULT_RESPONSE_FORMAT,
}
RESPONSE_FORMAT_TEXT: dict[Language, str] = {
    "zh-CN": "文本内容的格式：json 或 toon（默认 toon，同构数组压成表格，省 token）；"
             "structuredContent 总是 JSON。",
    "en-US": "Format of the text content: json or toon (default toon: uniform arrays become "
             "tables, fewer tokens); structuredContent is always JSON.",
}

BKN_CONTEXT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "BKN provenance context: the ids bkn_start_interaction returned.",
    "properties": {
        "conversation_id": {"type": "string", "description": "conversation_id from bkn_start_interaction"},
        "interaction_id": {"type": "string", "description": "interaction_id from bkn_start_interaction"},
    },
    "required": ["conversation_id", "interaction_id"],
    "additionalProperties": False,
}


class SearchNativeToolsInput(ToolInput):
    query: str | None = described("按名称或说明查找工具；留空列出全部。", "Find tools by name or description; empty lists all.", default=None)
    limit: int = Field(20, ge=1, le=100)


class DescribeNativeToolInput(ToolInput):
    name: str = described("工具名（取自 search_native_tools）。", "Tool name (from search_native_tools).", min_length=1)


class ExecuteNativeToolInput(ToolInput):
    name: str = described("工具名（取自 search_native_tools）。", "Tool name (from search_native_tools).", min_length=1)
    arguments: dict[str, Any] = described(
        "该工具的参数，业务工具需包含 bkn_context。", "The tool's arguments; business tools need bkn_context inside.",
        default_factory=dict,
    )


GATEWAY_TOOLS: dict[str, tuple[type[ToolInput], dict[Language, str]]] = {
    "search_native_tools": (SearchNativeToolsInput, {
        "zh-CN": "查找本端点未直接公布的其余工具。", "en-US": "Find the other tools this endpoint does not list directly."}),
    "describe_native_tool": (DescribeNativeToolInput, {
        "zh-CN": "取得一个工具的说明与完整输入 schema。", "en-US": "Get one tool's description and full input schema."}),
    "execute_native_tool": (ExecuteNativeToolInput, {
        "zh-CN": "按名称调用一个工具，语义与直接调用相同。", "en-US": "Call a tool by name, with the same semantics as calling it directly."}),
}


def tool_input_schema(definition: ToolDefinition, language: Language) -> dict[str, Any]:
    schema = localized_schema(definition.input_model, language)
    if definition.kind != "lifecycle":
        schema.setdefault("properties", {})["bkn_context"] = BKN_CONTEXT_SCHEMA
        schema["required"] = [*schema.get("required", []), "bkn_context"]
    _offer_response_format(schema, language)
    return schema


def _offer_response_format(schema: dict[str, Any], language: Language) -> None:
    """Every MCP tool accepts ``response_format`` (the pipeline takes it out before the
    tool's own input model sees the arguments)."""
    schema.setdefault("properties", {})["response_format"] = {
        **RESPONSE_FORMAT_SCHEMA, "description": RESPONSE_FORMAT_TEXT[language],
    }


def mcp_text(structured: dict[str, Any], response_format: ResponseFormat | None) -> str:
    """The text content of a tool answer in the requested (or the default) format."""
    if (response_format or MCP_DEFAULT_RESPONSE_FORMAT) == "json":
        return json_codec.dumps(structured).decode()
    return encode_toon(structured)


def native_tools(registry: ToolRegistry) -> list[ToolDefinition]:
    """Every tool that may appear on MCP at all."""
    return [t for t in registry.mcp_tools() if t.name not in NEVER_ON_MCP]


_LISTINGS: dict[tuple[int, Endpoint, Language], list[dict[str, Any]]] = {}
_SCHEMAS: dict[tuple[int, Endpoint], Mapping[str, dict[str, Any]]] = {}


def listing(registry: ToolRegistry, endpoint: Endpoint, language: Language) -> list[dict[str, Any]]:
    """Tool descriptors for tools/list and /info on ``endpoint`` (built once per registry,
    endpoint and language: a registry does not change after start-up). Do not mutate."""
    key = (id(registry), endpoint, language)
    cached = _LISTINGS.get(key)
    if cached is None:
        cached = _LISTINGS[key] = _build_listing(registry, endpoint, language)
    return cached


def _build_listing(registry: ToolRegistry, endpoint: Endpoint, language: Language) -> list[dict[str, Any]]:
    natives = native_tools(registry)
    if endpoint == "full":
        return [_descriptor(t, language) for t in natives]
    direct = [t for t in natives if t.kind == "lifecycle" or t.name in COMPACT_DIRECT]
    gateway = [
        {"name": name, "description": description[language],
         "inputSchema": _without(_gateway_schema(model, language), {"title"}),
         "outputSchema": {"type": "object"}}
        for name, (model, description) in GATEWAY_TOOLS.items()
    ]
    out = [_descriptor(t, language, compact=True) for t in direct] + gateway
    assert len(out) <= COMPACT_LIMIT
    return out


def _gateway_schema(model: type[ToolInput], language: Language) -> dict[str, Any]:
    schema = localized_schema(model, language)
    _offer_response_format(schema, language)
    return schema


def published_schemas(registry: ToolRegistry, endpoint: Endpoint) -> Mapping[str, dict[str, Any]]:
    """Name → published input schema (structure is the same in every language), cached like
    the listing. The SDK looks a tool's schema up here for each 2026-07-28 ``tools/call``
    (``Mcp-Param`` header checks); without it, it would run a whole tools/list per call."""
    key = (id(registry), endpoint)
    cached = _SCHEMAS.get(key)
    if cached is None:
        cached = _SCHEMAS[key] = MappingProxyType(
            {d["name"]: d["inputSchema"] for d in listing(registry, endpoint, "en-US")}
        )
    return cached


def reachable_through_gateway(registry: ToolRegistry) -> list[ToolDefinition]:
    """Native tools the compact endpoint reaches on demand (those not listed directly)."""
    direct = published_schemas(registry, "compact")
    return [t for t in native_tools(registry) if t.name not in direct]


def _descriptor(definition: ToolDefinition, language: Language, compact: bool = False) -> dict[str, Any]:
    """A tools/list entry; the compact endpoint drops per-field descriptions (the full schema,
    descriptions included, stays one describe_native_tool call away)."""
    schema = _without(tool_input_schema(definition, language), {"title"})
    if compact:
        schema = _without(schema, {"description"})
    return {
        "name": definition.name,
        "description": definition.describe(language),
        "inputSchema": schema,
        "outputSchema": definition.output_schema,
    }


def _without(node: Any, keys: set[str], parent: str = "") -> Any:
    """``node`` with schema keywords in ``keys`` removed at every level (never property names)."""
    if isinstance(node, dict):
        return {
            k: _without(v, keys, k) for k, v in node.items()
            if parent == "properties" or k not in keys
        }
    if isinstance(node, list):
        return [_without(v, keys) for v in node]
    return node
