"""What the gateway needs to present capabilities: gate results, catalogue names, schemas."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from bkn_common import events as ev
from bkn_common.catalog_state import ToolEntry
from tool_executor.domain.openapi import business_input_schema
from tool_executor.service_layer.state import FactoryState

log = logging.getLogger(__name__)


def _input_schema(entry: ToolEntry) -> dict[str, Any]:
    tool = entry.tool
    if isinstance(tool, ev.ToolSpec) and tool.openapi is not None:
        return business_input_schema(tool.openapi)
    return dict(tool.input_schema or {"type": "object", "properties": {}})


def _details(state: FactoryState, ref: ev.CapabilityRef) -> dict[str, Any]:
    """Catalogue text and, for tools, the trimmed input schema (raises if it cannot be built)."""
    if ref.capability_type == "skill":
        skill = state.catalog.skills.get(ref.capability_id)
        if skill is None:
            return {}
        return {"name": skill.name, "description": skill.description, "use_rule": skill.use_rule}
    entry = state.catalog.tool_entry(ref)
    if entry is None:
        return {}
    return {
        "name": entry.name, "description": entry.description, "use_rule": entry.use_rule,
        "metadata_type": entry.metadata_type, "input_schema": _input_schema(entry),
    }


def _item(state: FactoryState, kn_id: str, ref: ev.CapabilityRef) -> dict[str, Any]:
    gate = state.catalog.gate(ref)
    return {
        **ref.model_dump(),
        "bound": state.catalog.is_bound(kn_id, ref),
        "gate_passed": gate.passed,
        "gate_reason": gate.reason,
    }


def _network(state: FactoryState, kn_id: str) -> dict[str, Any]:
    proxy = state.catalog.proxies.get(kn_id)
    return {"proxy_synced": bool(proxy and proxy[1]), "network_known": state.access.exists(kn_id)}


def resolve(
    state: FactoryState, kn_id: str, refs: Sequence[ev.CapabilityRef]
) -> dict[str, Any]:
    """Per given capability: mounted?, lifecycle gate, catalogue text and trimmed input schema.

    A toolbox whose schemas cannot be built is skipped (listed in ``skipped_owners``), not fatal.
    """
    items, skipped = _described(state, kn_id, refs)
    return {"items": items, "skipped_owners": sorted(skipped), **_network(state, kn_id)}


def _described(
    state: FactoryState, kn_id: str, refs: Sequence[ev.CapabilityRef], limit: int | None = None
) -> tuple[list[dict[str, Any]], set[str]]:
    """Items with details for ``refs`` in order (at most ``limit``), and the owners skipped:
    one broken toolbox must not hide every other capability."""
    items: list[dict[str, Any]] = []
    skipped: set[str] = set()
    for ref in refs:
        if limit is not None and len(items) >= limit:
            break
        if ref.owner_id in skipped:
            continue
        try:
            items.append({**_item(state, kn_id, ref), **_details(state, ref)})
        except Exception:
            log.warning("skipping owner %s: its schemas cannot be built", ref.owner_id, exc_info=True)
            skipped.add(ref.owner_id or "")
            items = [i for i in items if i.get("owner_id") != ref.owner_id]
    return items, skipped


def _gated_mounts(
    state: FactoryState, kn_id: str, types: tuple[str, ...], owner_id: str | None
) -> tuple[list[ev.CapabilityRef], list[ev.CapabilityRef], list[ev.CapabilityRef]]:
    """(mounted, filtered, passing the gate), recomputed only when the catalogue changed."""
    key = (kn_id, types, owner_id)
    cached = state.gated_cache.get(key)
    if cached is None or cached[0] != state.catalog.version:
        mounted = state.catalog.mounted(kn_id)
        filtered = [
            ref for ref in mounted
            if (not types or ref.capability_type in types)
            and (owner_id is None or ref.owner_id == owner_id)
        ]
        passing = [ref for ref in filtered if state.catalog.gate(ref).passed]
        cached = state.gated_cache[key] = (state.catalog.version, mounted, filtered, passing)
    return cached[1], cached[2], cached[3]


def list_mounted(
    state: FactoryState,
    kn_id: str,
    *,
    types: Sequence[str] | None,
    owner_id: str | None,
    limit: int,
) -> dict[str, Any]:
    """The network's mounts in binding order that pass the filters and the lifecycle gate:
    the first ``limit`` with details, and how many there are in all (cheap: the gate only)."""
    mounted, filtered, passing = _gated_mounts(state, kn_id, tuple(types or ()), owner_id)
    items, skipped = _described(state, kn_id, passing, limit)
    return {
        "items": items,
        "passing_total": sum(1 for ref in passing if ref.owner_id not in skipped),
        "filtered_total": len(filtered),
        "mounted_total": len(mounted),
        "skipped_owners": sorted(skipped),
        **_network(state, kn_id),
    }
