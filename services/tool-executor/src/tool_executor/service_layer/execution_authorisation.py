"""Execution authorisation: whether an account may act on a network, and whether a
capability may run there now (mounted, the network's proxy synced, the lifecycle gate of
``bkn_common.domain.catalog_state`` passed). Every execution passes these checks first
(:class:`~tool_executor.service_layer.execution.ToolExecutor` and the action runner); a
refusal is an :class:`~bkn_common.contracts.errors.ApiError` in the error envelope."""

from __future__ import annotations

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, network_permission_error
from tool_executor.domain.errors import ExecCode
from tool_executor.service_layer.projection import FactoryState


class ExecutionAuthorisation:
    """The checks, read from the live :class:`FactoryState` (its catalogue and grants)."""

    def __init__(self, state: FactoryState) -> None:
        self._state = state

    def require_network_permission(self, kn_id: str, account: str, permission: str) -> None:
        access = self._state.access
        if not access.exists(kn_id):
            raise ApiError(ExecCode.NETWORK_NOT_FOUND, 404, params={"kn_id": kn_id})
        if not access.has(kn_id, account, permission):
            raise network_permission_error(kn_id, permission)

    def owner_ref(self, kn_id: str, owner_id: str, tool_id: str) -> ev.CapabilityRef:
        """The capability a (toolbox_id, tool_id) pair names: a toolbox tool or an MCP tool."""
        catalog = self._state.catalog
        for capability_type in ("function", "mcp_tool"):
            ref = ev.CapabilityRef(
                capability_type=capability_type, capability_id=tool_id, owner_id=owner_id
            )
            if catalog.is_bound(kn_id, ref):
                return ref
        kind = "mcp_tool" if owner_id in catalog.servers else "function"
        return ev.CapabilityRef(capability_type=kind, capability_id=tool_id, owner_id=owner_id)

    def check_executable(self, kn_id: str, ref: ev.CapabilityRef) -> str:
        """Bound, proxy synced, published, enabled; returns the network's proxy identity."""
        catalog = self._state.catalog
        label = f"{ref.owner_id}/{ref.capability_id}"
        if not catalog.is_bound(kn_id, ref):
            raise ApiError(
                ExecCode.CAPABILITY_NOT_MOUNTED, 404, params={"capability": label, "kn_id": kn_id}
            )
        proxy = catalog.proxies.get(kn_id)
        if proxy is None or not proxy[1]:
            raise ApiError(ExecCode.PROXY_NOT_SYNCED, 409, params={"kn_id": kn_id})
        gate = catalog.gate(ref)
        if not gate.passed:
            raise gate_error(ref, gate.reason or "not_in_catalog")
        return proxy[0]


def gate_error(ref: ev.CapabilityRef, reason: str) -> ApiError:
    """The refusal for a capability the lifecycle gate stops, by the gate's reason."""
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
