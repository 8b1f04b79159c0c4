"""The tool registry: one definition per tool, shared by the REST routes and the MCP server.

A definition names its input model (the REST body schema and the MCP input schema come from
the same pydantic model), its descriptions in both languages, its handler and what kind of
call it is (a read, an execution, or a lifecycle call of the trace core).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import Language
from gateway.domain.context import CallContext

ToolKind = Literal["read", "execution", "lifecycle"]
# A handler's first argument is service_layer.deps.Deps; it is Any here because Deps holds the
# registry, and naming it would make this module and deps.py import each other.
Handler = Callable[[Any, CallContext, Any], Awaitable[dict[str, Any]]]
Evidence = Callable[[Any, dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class ToolDefinition:
    name: str
    input_model: type[BaseModel]
    description: Mapping[Language, str]
    handler: Handler
    kind: ToolKind = "read"
    on_mcp: bool = True
    evidence: Evidence | None = None
    rest_body: Callable[[dict[str, Any]], Any] | None = None
    refusal: Callable[[ApiError, Language], ApiError] | None = None
    """Turns this tool's refusals into its API's envelope (knowledge-base tools: OpenAPI)."""
    output_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})

    def describe(self, language: Language) -> str:
        return self.description.get(language) or self.description["en-US"]


class ToolRegistry:
    def __init__(self, definitions: Iterable[ToolDefinition] = ()) -> None:
        self._tools: dict[str, ToolDefinition] = {}
        for definition in definitions:
            self.register(definition)

    def register(self, definition: ToolDefinition) -> None:
        if definition.name in self._tools:
            raise ValueError(f"tool {definition.name} registered twice")
        self._tools[definition.name] = definition

    def get(self, name: str) -> ToolDefinition | None:
        return self._tools.get(name)

    def all(self) -> list[ToolDefinition]:
        return list(self._tools.values())

    def mcp_tools(self) -> list[ToolDefinition]:
        return [t for t in self._tools.values() if t.on_mcp]
