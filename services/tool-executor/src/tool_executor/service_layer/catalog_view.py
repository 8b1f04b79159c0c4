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


def resolve(
    state: FactoryState, kn_id: str, refs: Sequence[ev.CapabilityRef] | None
) -> dict[str, Any]:
    """Per capability: mounted?, lifecycle gate, catalogue text and trimmed input schema.

    Without ``refs``: every capability mounted on the network, in binding order. A toolbox
    whose schemas cannot be built is skipped (listed in ``skipped_owners``), not fatal.
    """
    targets = state.catalog.mounted(kn_id) if refs is None else list(refs)
    items: list[dict[str, Any]] = []
    skipped: set[str] = set()
    for ref in targets:
        if ref.owner_id in skipped:
            continue
        gate = state.catalog.gate(ref)
        item: dict[str, Any] = {
            **ref.model_dump(),
            "bound": state.catalog.is_bound(kn_id, ref),
            "gate_passed": gate.passed,
            "gate_reason": gate.reason,
        }
        try:
            if ref.capability_type == "skill":
                skill = state.catalog.skills.get(ref.capability_id)
                if skill is not None:
                    item.update(name=skill.name, description=skill.description, use_rule=skill.use_rule)
            else:
                entry = state.catalog.tool_entry(ref)
                if entry is not None:
                    item.update(
                        name=entry.name, description=entry.description, use_rule=entry.use_rule,
                        metadata_type=entry.metadata_type, input_schema=_input_schema(entry),
                    )
        except Exception:  # one broken toolbox must not hide every other capability
            log.warning("skipping owner %s: its schemas cannot be built", ref.owner_id, exc_info=True)
            skipped.add(ref.owner_id or "")
            continue
        items.append(item)
    proxy = state.catalog.proxies.get(kn_id)
    return {
        "items": [i for i in items if i.get("owner_id") not in skipped],
        "skipped_owners": sorted(skipped),
        "proxy_synced": bool(proxy and proxy[1]),
        "network_known": state.access.exists(kn_id),
    }
