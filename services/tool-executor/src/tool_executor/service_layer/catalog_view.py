"""What the gateway needs to present capabilities: gate results, catalogue names, schemas."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.capability_view import described
from tool_executor.service_layer.projection import FactoryState


def _network(state: FactoryState, kn_id: str) -> dict[str, Any]:
    proxy = state.catalog.proxies.get(kn_id)
    return {"proxy_synced": bool(proxy and proxy[1]), "network_known": state.access.exists(kn_id)}


def resolve(
    state: FactoryState, kn_id: str, refs: Sequence[ev.CapabilityRef]
) -> dict[str, Any]:
    """Per given capability: mounted?, lifecycle gate, catalogue text and trimmed input schema.

    A toolbox whose schemas cannot be built is skipped (listed in ``skipped_owners``), not fatal.
    """
    items, skipped = described(state.catalog, kn_id, refs)
    return {"items": items, "skipped_owners": sorted(skipped), **_network(state, kn_id)}


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
    items, skipped = described(state.catalog, kn_id, passing, limit)
    return {
        "items": items,
        "passing_total": sum(1 for ref in passing if ref.owner_id not in skipped),
        "filtered_total": len(filtered),
        "mounted_total": len(mounted),
        "skipped_owners": sorted(skipped),
        **_network(state, kn_id),
    }
