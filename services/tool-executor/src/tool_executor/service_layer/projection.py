"""The execution factory's own records, and the checks every execution passes first."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from bkn_common import events as ev
from bkn_common.access import NetworkAccess
from bkn_common.catalog_state import CatalogState
from bkn_common.errors import ApiError, network_permission_error
from bkn_common.rebuildable import Rebuildable
from tool_executor.domain.errors import ExecCode

Refs = list[ev.CapabilityRef]
GatedMounts = tuple[int, Refs, Refs, Refs]  # catalogue version, mounted, filtered, passing


@dataclass
class FactoryState:
    """Catalogue, bindings, lifecycle and network grants, folded from Kafka."""

    catalog: CatalogState = field(default_factory=CatalogState)
    access: NetworkAccess = field(default_factory=NetworkAccess)
    gated_cache: dict[tuple[str, tuple[str, ...], str | None], GatedMounts] = field(
        default_factory=dict, repr=False
    )
    """Mounted / filtered / gate-passing capabilities per listing, valid for one catalogue version."""

    def apply(self, record: ev.EventRecord) -> None:
        if not self.catalog.apply(record):
            self.access.apply(record)

    def snapshot(self) -> dict[str, object]:
        return {**self.catalog.snapshot(), **self.access.snapshot()}

    # -- checkpoint (bkn_common.checkpoint.Checkpointable) --------------------------------
    checkpoint_version = 1

    def checkpoint_data(self) -> dict[str, object]:
        return {"catalog": self.catalog.checkpoint_data(), "networks": self.access.checkpoint_data()}

    def restore_checkpoint(self, data: dict[str, Any]) -> None:
        catalog = CatalogState.from_checkpoint(data["catalog"])
        access = NetworkAccess.from_checkpoint(data["networks"])
        self.catalog, self.access = catalog, access
        self.gated_cache.clear()

    def owner_ref(self, kn_id: str, owner_id: str, tool_id: str) -> ev.CapabilityRef:
        """The capability a (toolbox_id, tool_id) pair names: a toolbox tool or an MCP tool."""
        for capability_type in ("function", "mcp_tool"):
            ref = ev.CapabilityRef(
                capability_type=capability_type, capability_id=tool_id, owner_id=owner_id
            )
            if self.catalog.is_bound(kn_id, ref):
                return ref
        kind = "mcp_tool" if owner_id in self.catalog.servers else "function"
        return ev.CapabilityRef(capability_type=kind, capability_id=tool_id, owner_id=owner_id)

    def require_network_permission(self, kn_id: str, account: str, permission: str) -> None:
        if not self.access.exists(kn_id):
            raise ApiError(ExecCode.NETWORK_NOT_FOUND, 404, params={"kn_id": kn_id})
        if not self.access.has(kn_id, account, permission):
            raise network_permission_error(kn_id, permission)

    def check_executable(self, kn_id: str, ref: ev.CapabilityRef) -> str:
        """Bound, proxy synced, published, enabled; returns the network's proxy identity."""
        label = f"{ref.owner_id}/{ref.capability_id}"
        if not self.catalog.is_bound(kn_id, ref):
            raise ApiError(
                ExecCode.CAPABILITY_NOT_MOUNTED, 404, params={"capability": label, "kn_id": kn_id}
            )
        proxy = self.catalog.proxies.get(kn_id)
        if proxy is None or not proxy[1]:
            raise ApiError(ExecCode.PROXY_NOT_SYNCED, 409, params={"kn_id": kn_id})
        gate = self.catalog.gate(ref)
        if not gate.passed:
            raise gate_error(ref, gate.reason or "not_in_catalog")
        return proxy[0]


def gate_error(ref: ev.CapabilityRef, reason: str) -> ApiError:
    label = f"{ref.owner_id}/{ref.capability_id}"
    owner_kind = "Toolbox" if ref.capability_type == "function" else "MCP Server"
    if reason in ("owner_offline", "owner_state_unknown"):
        state = "offline" if reason == "owner_offline" else "state unconfirmed"
        return ApiError(
            ExecCode.OWNER_UNPUBLISHED, 409,
            params={"owner_kind": owner_kind, "owner_id": ref.owner_id, "state": state},
            details={"reason": reason},
        )
    if reason in ("tool_disabled", "tool_state_unknown"):
        state = "disabled" if reason == "tool_disabled" else "state unconfirmed"
        return ApiError(
            ExecCode.TOOL_DISABLED, 409, params={"capability": label, "state": state},
            details={"reason": reason},
        )
    return ApiError(ExecCode.TOOL_NOT_FOUND, 404, params={"capability": label})


REBUILDABLE = Rebuildable(
    consumer="tool-executor",
    open_store=lambda: nullcontext(FactoryState()),
    default_url="http://127.0.0.1:30782",
)
"""The ``bkn.replay`` entry point: what `clctl replay tool-executor` rebuilds (see bkn_common.rebuildable)."""
