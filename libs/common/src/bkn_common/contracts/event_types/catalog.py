"""Events describing the capabilities that can be mounted: toolboxes, MCP servers, skills."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from bkn_common.contracts.event_types.base import Event, register_event
from bkn_common.contracts.event_types.network import Frozen


class OpenApiParameter(Frozen):
    name: str
    location: Literal["path", "query", "header", "cookie"]
    required: bool = False
    json_schema: dict[str, Any] = Field(default_factory=dict)
    description: str = ""


class OpenApiOperation(Frozen):
    """The registered OpenAPI operation a tool calls."""

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
    path: str
    parameters: tuple[OpenApiParameter, ...] = ()
    request_body_schema: dict[str, Any] | None = None


class FunctionCode(Frozen):
    """Python source run in the sandbox: ``handler(arguments: dict) -> Any``."""

    source: str
    handler: str = "handler"
    allow_network: bool = False
    cpu_seconds: int = 5
    memory_mb: int = 256
    wall_seconds: float = 10.0


class ToolSpec(Frozen):
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    openapi: OpenApiOperation | None = None
    function: FunctionCode | None = None
    input_schema: dict[str, Any] | None = None


@register_event
class ToolboxUpserted(Event):
    type = "catalog.toolbox.upserted"
    id: str
    name: str
    description: str = ""
    kind: Literal["openapi", "function"]
    server_url: str | None = None
    timeout_seconds: float = 10.0
    tools: tuple[ToolSpec, ...]


class McpToolSpec(Frozen):
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict)


@register_event
class McpServerUpserted(Event):
    type = "catalog.mcp_server.upserted"
    id: str
    name: str
    description: str = ""
    url: str
    timeout_seconds: float = 10.0
    tools: tuple[McpToolSpec, ...]


@register_event
class SkillUpserted(Event):
    type = "catalog.skill.upserted"
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    entry: str
    files: dict[str, str]
    category: str = ""
