"""How a mounted capability is presented: bound?, lifecycle gate, catalogue text, and for
tools the input schema trimmed to business inputs.

Shared by tool-executor (a network's mounts in binding order, ``/capabilities/resolve``) and
capability-index (ranked hits resolved in the same answer), each over its own
:class:`CatalogState` folded from the same topics.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.catalog_state import CatalogState, ToolEntry

log = logging.getLogger(__name__)

# headers a registered operation may declare that belong to the transport, not the business
TRANSPORT_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization", "host"})


def business_input_schema(op: ev.OpenApiOperation) -> dict[str, Any]:
    """The input schema handed to agents: parameters and body, never servers or auth headers."""
    schema: dict[str, Any] = {}
    parameters = [
        {
            "name": p.name,
            "in": p.location,
            "required": p.required,
            "schema": p.json_schema,
            **({"description": p.description} if p.description else {}),
        }
        for p in op.parameters
        if not (p.location == "header" and p.name.lower() in TRANSPORT_HEADERS)
        and p.location != "cookie"
    ]
    if parameters:
        schema["parameters"] = parameters
    if op.request_body_schema is not None:
        schema["request_body"] = {"content": {"application/json": {"schema": op.request_body_schema}}}
    return schema


def _input_schema(entry: ToolEntry) -> dict[str, Any]:
    tool = entry.tool
    if isinstance(tool, ev.ToolSpec) and tool.openapi is not None:
        return business_input_schema(tool.openapi)
    return dict(tool.input_schema or {"type": "object", "properties": {}})


def _details(catalog: CatalogState, ref: ev.CapabilityRef) -> dict[str, Any]:
    """Catalogue text and, for tools, the trimmed input schema (raises if it cannot be built)."""
    if ref.capability_type == "skill":
        skill = catalog.skills.get(ref.capability_id)
        if skill is None:
            return {}
        return {"name": skill.name, "description": skill.description, "use_rule": skill.use_rule}
    entry = catalog.tool_entry(ref)
    if entry is None:
        return {}
    return {
        "name": entry.name, "description": entry.description, "use_rule": entry.use_rule,
        "metadata_type": entry.metadata_type, "input_schema": _input_schema(entry),
    }


def _gate_item(catalog: CatalogState, kn_id: str, ref: ev.CapabilityRef) -> dict[str, Any]:
    gate = catalog.gate(ref)
    return {
        "capability_type": ref.capability_type,
        "capability_id": ref.capability_id,
        "owner_id": ref.owner_id,
        "bound": catalog.is_bound(kn_id, ref),
        "gate_passed": gate.passed,
        "gate_reason": gate.reason,
    }


def described(
    catalog: CatalogState, kn_id: str, refs: Sequence[ev.CapabilityRef], limit: int | None = None
) -> tuple[list[dict[str, Any]], set[str]]:
    """Items (bound?, gate, text, schema) for ``refs`` in order, at most ``limit``, and the
    owners skipped: one toolbox whose schemas cannot be built must not hide every other one."""
    items: list[dict[str, Any]] = []
    skipped: set[str] = set()
    for ref in refs:
        if limit is not None and len(items) >= limit:
            break
        if ref.owner_id in skipped:
            continue
        try:
            items.append({**_gate_item(catalog, kn_id, ref), **_details(catalog, ref)})
        except Exception:
            log.warning("skipping owner %s: its schemas cannot be built", ref.owner_id, exc_info=True)
            skipped.add(ref.owner_id or "")
            items = [i for i in items if i.get("owner_id") != ref.owner_id]
    return items, skipped
