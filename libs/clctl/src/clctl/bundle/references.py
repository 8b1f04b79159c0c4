"""Cross-reference checks of a parsed bundle."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bkn_common.contracts.event_types.network import ALL_OPERATORS
from clctl.bundle.models import (
    BindingsDoc,
    InstancesDoc,
    LifecycleDoc,
    McpServerDoc,
    NetworkDoc,
    SchemaDoc,
    SkillDoc,
    ToolboxDoc,
)
from clctl.bundle.parsed import Bundle, Problem

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "string": (str,),
    "datetime": (str,),
}


def instance_id(row: dict[str, Any], primary_keys: list[str] | tuple[str, ...]) -> str:
    """The instance id: its primary key values joined by ``|``."""
    return "|".join(str(row[k]) for k in primary_keys)


class ReferenceChecker:
    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.problems: list[Problem] = []

    def _file(self, model: object) -> str:
        for doc in self.bundle.documents:
            if doc.model is model:
                return str(doc.file.relative_to(self.bundle.root))
        return "?"

    def _add(self, model: object, path: str, message: str) -> None:
        self.problems.append(Problem(self._file(model), path, message))

    def run(self) -> list[Problem]:
        networks = {n.id for n in self.bundle.of(NetworkDoc)}
        toolboxes = {t.id: t for t in self.bundle.of(ToolboxDoc)}
        servers = {s.id: s for s in self.bundle.of(McpServerDoc)}
        skills = {s.id for s in self.bundle.of(SkillDoc)}
        for kind in (NetworkDoc, ToolboxDoc, McpServerDoc, SkillDoc):
            seen: set[str] = set()
            for doc in self.bundle.of(kind):
                if doc.id in seen:
                    self._add(doc, "id", f"{kind.__name__.removesuffix('Doc')} {doc.id!r} is declared twice")
                seen.add(doc.id)
        for network_kind in (SchemaDoc, BindingsDoc):
            seen = set()
            for doc in self.bundle.of(network_kind):
                if doc.network in seen:
                    label = network_kind.__name__.removesuffix("Doc")
                    self._add(doc, "network", f"a second {label} for {doc.network!r}")
                seen.add(doc.network)
        schemas: dict[str, SchemaDoc] = {}
        for schema in self.bundle.of(SchemaDoc):
            if schema.network not in networks:
                self._add(schema, "network", f"network {schema.network!r} is not declared")
            schemas[schema.network] = schema
            self._check_schema(schema, toolboxes)
        for toolbox in toolboxes.values():
            self._check_toolbox(toolbox)
        for instances in self.bundle.of(InstancesDoc):
            schema = schemas.get(instances.network)
            if schema is None:
                self._add(instances, "network", f"network {instances.network!r} has no Schema")
                continue
            self._check_instances(instances, schema)
        for bindings in self.bundle.of(BindingsDoc):
            if bindings.network not in networks:
                self._add(bindings, "network", f"network {bindings.network!r} is not declared")
            self._check_bindings(bindings, toolboxes, servers, skills)
        for lifecycle in self.bundle.of(LifecycleDoc):
            self._check_lifecycle(lifecycle, toolboxes, servers, networks)
        return self.problems

    def _check_schema(self, schema: SchemaDoc, toolboxes: dict[str, ToolboxDoc]) -> None:
        groups = {g.id for g in schema.concept_groups}
        types = {ot.id for ot in schema.object_types}
        self._duplicates(schema, "concept_groups", [g.id for g in schema.concept_groups])
        self._duplicates(schema, "object_types", [ot.id for ot in schema.object_types])
        self._duplicates(schema, "relation_types", [rt.id for rt in schema.relation_types])
        self._duplicates(schema, "action_types", [at.id for at in schema.action_types])
        for i, ot in enumerate(schema.object_types):
            names = {p.name for p in ot.properties}
            for j, prop in enumerate(ot.properties):
                unknown = sorted(set(prop.condition_operations) - set(ALL_OPERATORS))
                if unknown:
                    self._add(schema, f"object_types[{i}].properties[{j}].condition_operations",
                              f"unknown operator(s) {', '.join(unknown)}")
            for field_name, keys in (("primary_keys", ot.primary_keys), ("display_key", [ot.display_key])):
                for key in keys:
                    if key not in names:
                        self._add(schema, f"object_types[{i}].{field_name}", f"{key!r} is not a property of {ot.id}")
            for group in ot.concept_groups:
                if group not in groups:
                    self._add(schema, f"object_types[{i}].concept_groups", f"unknown concept group {group!r}")
        for i, rt in enumerate(schema.relation_types):
            for end in ("source", "target"):
                if getattr(rt, end) not in types:
                    self._add(schema, f"relation_types[{i}].{end}", f"unknown object type {getattr(rt, end)!r}")
        for i, at in enumerate(schema.action_types):
            if at.object_type not in types:
                self._add(schema, f"action_types[{i}].object_type", f"unknown object type {at.object_type!r}")
            box = toolboxes.get(at.toolbox)
            if box is None or at.tool not in {t.id for t in box.tools}:
                self._add(schema, f"action_types[{i}].tool", f"tool {at.toolbox}/{at.tool} is not declared")

    def _duplicates(self, model: object, path: str, ids: list[str]) -> None:
        seen: set[str] = set()
        for i, item in enumerate(ids):
            if item in seen:
                self._add(model, f"{path}[{i}].id", f"duplicate id {item!r}")
            seen.add(item)

    def _check_toolbox(self, toolbox: ToolboxDoc) -> None:
        self._duplicates(toolbox, "tools", [t.id for t in toolbox.tools])
        if toolbox.toolbox_kind == "openapi" and not toolbox.server_url:
            self._add(toolbox, "server_url", "an openapi toolbox needs server_url")
        for i, tool in enumerate(toolbox.tools):
            if toolbox.toolbox_kind == "openapi" and tool.openapi is None:
                self._add(toolbox, f"tools[{i}].openapi", "an openapi tool needs its operation")
            if toolbox.toolbox_kind == "function":
                fn = tool.function
                if fn is None or not (fn.source or fn.source_file):
                    self._add(toolbox, f"tools[{i}].function", "a function tool needs source or source_file")

    def _check_instances(self, doc: InstancesDoc, schema: SchemaDoc) -> None:
        object_types = {ot.id: ot for ot in schema.object_types}
        ids: dict[str, set[str]] = {}
        for ot_id, rows in doc.objects.items():
            ot = object_types.get(ot_id)
            if ot is None:
                self._add(doc, f"objects.{ot_id}", f"unknown object type {ot_id!r}")
                continue
            props = {p.name: p for p in ot.properties}
            seen = ids.setdefault(ot_id, set())
            for r, row in enumerate(rows):
                where = f"objects.{ot_id}[{r}]"
                missing = [k for k in ot.primary_keys if row.get(k) is None]
                if missing:
                    self._add(doc, where, f"primary key {', '.join(missing)} missing")
                    continue
                if instance_id(row, ot.primary_keys) in seen:
                    self._add(doc, where, f"duplicate primary key {instance_id(row, ot.primary_keys)!r}")
                for name, value in row.items():
                    prop = props.get(name)
                    if prop is None:
                        self._add(doc, f"{where}.{name}", f"{ot_id} has no property {name!r}")
                    elif value is not None and not _type_ok(value, prop.type):
                        self._add(doc, f"{where}.{name}", f"expected {prop.type}, got {value!r}")
                seen.add(instance_id(row, ot.primary_keys))
        relation_types = {rt.id: rt for rt in schema.relation_types}
        for rt_id, pairs in doc.relations.items():
            rt = relation_types.get(rt_id)
            if rt is None:
                self._add(doc, f"relations.{rt_id}", f"unknown relation type {rt_id!r}")
                continue
            for r, (source, target) in enumerate(pairs):
                if source not in ids.get(rt.source, set()):
                    self._add(doc, f"relations.{rt_id}[{r}][0]", f"no {rt.source} instance {source!r}")
                if target not in ids.get(rt.target, set()):
                    self._add(doc, f"relations.{rt_id}[{r}][1]", f"no {rt.target} instance {target!r}")

    def _check_bindings(
        self,
        doc: BindingsDoc,
        toolboxes: dict[str, ToolboxDoc],
        servers: dict[str, McpServerDoc],
        skills: set[str],
    ) -> None:
        seen: set[tuple[str, str, str | None]] = set()
        for i, cap in enumerate(doc.capabilities):
            where = f"capabilities[{i}]"
            key = (cap.type, cap.id, cap.owner)
            if key in seen:
                self._add(doc, where, "capability mounted twice")
            seen.add(key)
            if cap.type == "skill":
                if cap.owner is not None:
                    self._add(doc, f"{where}.owner", "a skill has no owner")
                elif cap.id not in skills:
                    self._add(doc, f"{where}.id", f"skill {cap.id!r} is not declared")
                continue
            owners: dict[str, Any] = toolboxes if cap.type == "function" else servers
            owner = owners.get(cap.owner or "")
            if owner is None:
                self._add(doc, f"{where}.owner", f"{cap.type} owner {cap.owner!r} is not declared")
            elif cap.id not in {t.id for t in owner.tools}:
                self._add(doc, f"{where}.id", f"{cap.owner} has no tool {cap.id!r}")

    def _check_lifecycle(
        self,
        doc: LifecycleDoc,
        toolboxes: dict[str, ToolboxDoc],
        servers: dict[str, McpServerDoc],
        networks: set[str],
    ) -> None:
        for box in doc.toolboxes:
            if box not in toolboxes:
                self._add(doc, f"toolboxes.{box}", "toolbox is not declared")
        for server in doc.mcp_servers:
            if server not in servers:
                self._add(doc, f"mcp_servers.{server}", "MCP server is not declared")
        owners: dict[str, Any] = {**toolboxes, **servers}
        for i, disabled in enumerate(doc.disabled_tools):
            owner = owners.get(disabled.owner)
            if owner is None or disabled.tool not in {t.id for t in owner.tools}:
                self._add(doc, f"disabled_tools[{i}]", f"tool {disabled.owner}/{disabled.tool} is not declared")
        for kn_id in doc.proxies:
            if kn_id not in networks:
                self._add(doc, f"proxies.{kn_id}", "network is not declared")


def _type_ok(value: Any, prop_type: str) -> bool:
    expected = _PYTHON_TYPES.get(prop_type, (object,))
    if prop_type in ("integer", "number") and isinstance(value, bool):
        return False
    if prop_type == "datetime" and isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            return False
    return isinstance(value, expected)
