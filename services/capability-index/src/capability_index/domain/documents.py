"""Index documents built from catalogue records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.catalog_state import ToolEntry

FIELDS: tuple[str, ...] = ("name", "use_rule", "description", "params")
"""The fields a document is indexed in, in the order postings number them."""


@dataclass(frozen=True)
class CapabilityDoc:
    capability_id: str
    capability_type: str  # "skill" | "function" | "mcp_tool"
    name: str
    description: str
    use_rule: str = ""
    param_names: tuple[str, ...] = ()

    def field_texts(self) -> tuple[str, str, str, str]:
        """The text of each of :data:`FIELDS`, in that order."""
        return (self.name, self.use_rule, self.description, " ".join(self.param_names))


def schema_param_names(schema: dict[str, Any] | None) -> list[str]:
    """Property names of a JSON schema object (one level, plus nested object properties)."""
    if not isinstance(schema, dict):
        return []
    names: list[str] = []
    for name, sub in (schema.get("properties") or {}).items():
        names.append(str(name))
        if isinstance(sub, dict) and sub.get("type") == "object":
            names.extend(schema_param_names(sub))
    return names


def tool_param_names(tool: ev.ToolSpec | ev.McpToolSpec) -> tuple[str, ...]:
    names = schema_param_names(tool.input_schema)
    if isinstance(tool, ev.ToolSpec) and tool.openapi is not None:
        names.extend(p.name for p in tool.openapi.parameters if p.location != "header")
        names.extend(schema_param_names(tool.openapi.request_body_schema))
    return tuple(dict.fromkeys(names))


def tool_document(entry: ToolEntry) -> CapabilityDoc:
    return CapabilityDoc(
        capability_id=entry.ref.key,
        capability_type=entry.ref.capability_type,
        name=entry.name,
        description=entry.description,
        use_rule=entry.use_rule,
        param_names=tool_param_names(entry.tool),
    )


def skill_document(skill: ev.SkillUpserted) -> CapabilityDoc:
    ref = ev.CapabilityRef(capability_type="skill", capability_id=skill.id)
    return CapabilityDoc(
        capability_id=ref.key,
        capability_type="skill",
        name=skill.name,
        description=skill.description,
        use_rule=skill.use_rule,
    )
