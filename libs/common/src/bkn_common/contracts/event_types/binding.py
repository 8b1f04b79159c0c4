"""Binding (mount) and lifecycle events: what is mounted on a network, and in what state."""

from __future__ import annotations

from typing import Literal

from bkn_common.contracts.event_types.base import Event, register_event
from bkn_common.contracts.event_types.network import Frozen

CapabilityType = Literal["skill", "function", "mcp_tool"]


class CapabilityRef(Frozen):
    """One capability: a skill (no owner), a toolbox's tool or an MCP server's tool."""

    capability_type: CapabilityType
    capability_id: str
    owner_id: str | None = None

    @property
    def key(self) -> str:
        return f"{self.capability_type}:{self.owner_id or ''}:{self.capability_id}"


@register_event
class BindingMounted(Event):
    """A capability mounted on a network; mount order is the binding order."""

    type = "binding.mounted"
    kn_id: str
    capability: CapabilityRef


@register_event
class BindingUnmounted(Event):
    type = "binding.unmounted"
    kn_id: str
    capability: CapabilityRef


@register_event
class BindingsReplaced(Event):
    """The complete, ordered set of capabilities mounted on a network (what a bundle declares)."""

    type = "binding.replaced"
    kn_id: str
    capabilities: tuple[CapabilityRef, ...]


@register_event
class OwnerStateChanged(Event):
    """A toolbox or MCP server published or taken offline."""

    type = "lifecycle.owner_state.changed"
    owner_kind: Literal["toolbox", "mcp_server"]
    owner_id: str
    state: Literal["published", "offline"]


@register_event
class ToolStateChanged(Event):
    type = "lifecycle.tool_state.changed"
    owner_id: str
    tool_id: str
    enabled: bool


@register_event
class ProxySyncChanged(Event):
    """Whether the network's hosted proxy identity is synced (executions need it)."""

    type = "lifecycle.proxy_sync.changed"
    kn_id: str
    proxy_id: str
    synced: bool
