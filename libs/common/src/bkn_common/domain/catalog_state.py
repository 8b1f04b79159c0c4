"""The capability catalogue as derived state: toolboxes, MCP servers, skills, bindings,
lifecycle and proxy sync, folded from the catalog, bindings and lifecycle topics.

Pure and idempotent: applying a record twice leaves the same state. capability-index uses
it to build its index; tool-executor uses it as the execution factory's own records (the
lifecycle gate and the exact binding check read it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import TypeAdapter

from bkn_common.contracts import events as ev

GateReason = Literal[
    "owner_offline", "owner_state_unknown", "tool_disabled", "tool_state_unknown", "not_in_catalog"
]


@dataclass(frozen=True)
class GateResult:
    """Whether a capability passes the lifecycle gate, and if not, why."""

    passed: bool
    reason: GateReason | None = None


@dataclass(frozen=True)
class ToolEntry:
    """A tool with its owner, whichever kind of owner it has."""

    ref: ev.CapabilityRef
    owner_name: str
    name: str
    description: str
    use_rule: str
    metadata_type: str | None
    tool: ev.ToolSpec | ev.McpToolSpec


@dataclass
class CatalogState:
    toolboxes: dict[str, ev.ToolboxUpserted] = field(default_factory=dict)
    servers: dict[str, ev.McpServerUpserted] = field(default_factory=dict)
    skills: dict[str, ev.SkillUpserted] = field(default_factory=dict)
    bindings: dict[str, dict[str, ev.CapabilityRef]] = field(default_factory=dict)
    """Per network, its mounted capabilities by key, in binding order."""
    owner_states: dict[tuple[str, str], str] = field(default_factory=dict)
    tool_states: dict[tuple[str, str], bool] = field(default_factory=dict)
    proxies: dict[str, tuple[str, bool]] = field(default_factory=dict)
    version: int = 0
    _tools: dict[str, dict[str, ev.ToolSpec | ev.McpToolSpec]] = field(default_factory=dict, repr=False)
    """Each owner's tools by id (an owner upserted again replaces its own entry only)."""

    def apply(self, record: ev.EventRecord) -> bool:
        """Fold one event in; returns whether the event concerned the catalogue."""
        event = record.event
        match event:
            case ev.ToolboxUpserted():
                self.toolboxes[event.id] = event
                self._index_tools(event.id, event.tools)
            case ev.McpServerUpserted():
                self.servers[event.id] = event
                self._index_tools(event.id, event.tools)
            case ev.SkillUpserted():
                self.skills[event.id] = event
            case ev.BindingsReplaced():
                self.bindings[event.kn_id] = {ref.key: ref for ref in event.capabilities}
            case ev.BindingMounted():
                self.bindings.setdefault(event.kn_id, {}).setdefault(event.capability.key, event.capability)
            case ev.BindingUnmounted():
                self.bindings.get(event.kn_id, {}).pop(event.capability.key, None)
            case ev.OwnerStateChanged():
                self.owner_states[(event.owner_kind, event.owner_id)] = event.state
            case ev.ToolStateChanged():
                self.tool_states[(event.owner_id, event.tool_id)] = event.enabled
            case ev.ProxySyncChanged():
                self.proxies[event.kn_id] = (event.proxy_id, event.synced)
            case _:
                return False
        self.version += 1
        return True

    def snapshot(self) -> dict[str, Any]:
        """The catalogue as JSON-able sections (see :mod:`bkn_common.framework.digest`)."""
        return {
            "toolboxes": {k: v.model_dump(mode="json") for k, v in self.toolboxes.items()},
            "mcp_servers": {k: v.model_dump(mode="json") for k, v in self.servers.items()},
            "skills": {k: v.model_dump(mode="json") for k, v in self.skills.items()},
            "bindings": {k: list(v) for k, v in self.bindings.items()},
            "owner_states": {f"{k[0]}:{k[1]}": v for k, v in self.owner_states.items()},
            "tool_states": {f"{k[0]}:{k[1]}": v for k, v in self.tool_states.items()},
            "proxies": {k: list(v) for k, v in self.proxies.items()},
        }

    def checkpoint_data(self) -> dict[str, Any]:
        """The state as plain data for a checkpoint (see :mod:`bkn_common.framework.checkpoint`)."""
        return {
            "toolboxes": [v.model_dump(mode="json") for v in self.toolboxes.values()],
            "mcp_servers": [v.model_dump(mode="json") for v in self.servers.values()],
            "skills": [v.model_dump(mode="json") for v in self.skills.values()],
            "bindings": ref_table(self.bindings.values(), self.bindings),
            "owner_states": [[k[0], k[1], v] for k, v in self.owner_states.items()],
            "tool_states": [[k[0], k[1], v] for k, v in self.tool_states.items()],
            "proxies": [[k, v[0], v[1]] for k, v in self.proxies.items()],
            "version": self.version,
        }

    @classmethod
    def from_checkpoint(cls, data: dict[str, Any]) -> CatalogState:
        """The state :meth:`checkpoint_data` describes (records validated as on the wire)."""
        state = cls(
            toolboxes={e.id: e for e in map(ev.ToolboxUpserted.model_validate, data["toolboxes"])},
            servers={e.id: e for e in map(ev.McpServerUpserted.model_validate, data["mcp_servers"])},
            skills={e.id: e for e in map(ev.SkillUpserted.model_validate, data["skills"])},
            bindings=keyed_ref_table(data["bindings"]),
            owner_states={(str(k), str(o)): str(v) for k, o, v in data["owner_states"]},
            tool_states={(str(o), str(t)): bool(v) for o, t, v in data["tool_states"]},
            proxies={str(k): (str(p), bool(v)) for k, p, v in data["proxies"]},
            version=int(data["version"]),
        )
        for box in state.toolboxes.values():
            state._index_tools(box.id, box.tools)
        for server in state.servers.values():
            state._index_tools(server.id, server.tools)
        return state

    def _index_tools(self, owner_id: str, tools: tuple[ev.ToolSpec, ...] | tuple[ev.McpToolSpec, ...]) -> None:
        self._tools[owner_id] = {t.id: t for t in tools}

    def mounted(self, kn_id: str) -> list[ev.CapabilityRef]:
        """The network's mounted capabilities in binding order."""
        return list(self.bindings.get(kn_id, {}).values())

    def is_bound(self, kn_id: str, ref: ev.CapabilityRef) -> bool:
        return ref.key in self.bindings.get(kn_id, {})

    def _tool(self, ref: ev.CapabilityRef) -> ev.ToolSpec | ev.McpToolSpec | None:
        """The tool's spec when ``ref`` names a catalogued tool of its kind."""
        tool = self._tools.get(ref.owner_id or "", {}).get(ref.capability_id)
        if ref.capability_type == "function" and isinstance(tool, ev.ToolSpec):
            return tool
        if ref.capability_type == "mcp_tool" and isinstance(tool, ev.McpToolSpec):
            return tool
        return None

    def tool_entry(self, ref: ev.CapabilityRef) -> ToolEntry | None:
        """The catalogue record of a tool capability (None for skills or unknown tools)."""
        tool = self._tool(ref)
        if isinstance(tool, ev.ToolSpec):
            box = self.toolboxes[ref.owner_id or ""]
            return ToolEntry(ref, box.name, tool.name, tool.description, tool.use_rule, box.kind, tool)
        if isinstance(tool, ev.McpToolSpec):
            server = self.servers[ref.owner_id or ""]
            return ToolEntry(ref, server.name, tool.name, tool.description, tool.use_rule, None, tool)
        return None

    def gate(self, ref: ev.CapabilityRef) -> GateResult:
        """The lifecycle gate; a state that cannot be confirmed counts as unpublished."""
        if ref.capability_type == "skill":
            passed = ref.capability_id in self.skills
            return GateResult(passed, None if passed else "not_in_catalog")
        if self._tool(ref) is None:
            return GateResult(False, "not_in_catalog")
        kind = "toolbox" if ref.capability_type == "function" else "mcp_server"
        owner_state = self.owner_states.get((kind, ref.owner_id or ""))
        if owner_state is None:
            return GateResult(False, "owner_state_unknown")
        if owner_state != "published":
            return GateResult(False, "owner_offline")
        enabled = self.tool_states.get((ref.owner_id or "", ref.capability_id))
        if enabled is None:
            return GateResult(False, "tool_state_unknown")
        if not enabled:
            return GateResult(False, "tool_disabled")
        return GateResult(True)


def ref_table(
    groups: Iterable[Iterable[ev.CapabilityRef] | Mapping[str, ev.CapabilityRef]],
    names: Iterable[str],
) -> dict[str, Any]:
    """Named lists of capability refs as plain data, each distinct ref written once
    (``refs``: ``[type, id, owner]``; ``lists``: name → positions in ``refs``)."""
    index: dict[str, int] = {}
    refs: list[list[str | None]] = []
    lists: dict[str, list[int]] = {}
    for name, group in zip(names, groups, strict=True):
        positions = []
        for ref in (group.values() if isinstance(group, Mapping) else group):
            at = index.get(ref.key)
            if at is None:
                at = index[ref.key] = len(refs)
                refs.append([ref.capability_type, ref.capability_id, ref.owner_id])
            positions.append(at)
        lists[name] = positions
    return {"refs": refs, "lists": lists}


def from_ref_table(table: dict[str, Any]) -> dict[str, list[ev.CapabilityRef]]:
    """The lists :func:`ref_table` wrote (each distinct ref built once, then shared)."""
    refs = capability_refs(table["refs"])
    return {name: [refs[at] for at in positions] for name, positions in table["lists"].items()}


def keyed_ref_table(table: dict[str, Any]) -> dict[str, dict[str, ev.CapabilityRef]]:
    """:func:`from_ref_table`'s lists as dicts by :attr:`~bkn_common.contracts.events.CapabilityRef.key`
    (each distinct ref's key computed once: 10,000 capabilities bound on 200 networks are
    100,000 entries but 10,000 keys)."""
    refs = capability_refs(table["refs"])
    keys = [r.key for r in refs]
    return {name: dict(zip(map(keys.__getitem__, positions), map(refs.__getitem__, positions),
                           strict=True))
            for name, positions in table["lists"].items()}


_REFS: TypeAdapter[list[ev.CapabilityRef]] = TypeAdapter(list[ev.CapabilityRef])


def capability_refs(rows: Iterable[Sequence[str | None]]) -> list[ev.CapabilityRef]:
    """``[type, id, owner]`` rows as refs, validated in one pydantic pass (faster than
    building each ref, validated or not: 10,000 refs in 9 ms against 15 or 24)."""
    return _REFS.validate_python(
        [{"capability_type": t, "capability_id": i, "owner_id": o} for t, i, o in rows])
