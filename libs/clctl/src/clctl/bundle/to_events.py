"""Translate a validated bundle into the ordered events that describe it."""

from __future__ import annotations

from bkn_common.contracts import events as ev
from clctl.bundle.loader import Bundle
from clctl.bundle.models import (
    BindingsDoc,
    DataResourcesDoc,
    InstancesDoc,
    LifecycleDoc,
    McpServerDoc,
    NetworkDoc,
    SchemaDoc,
    SkillDoc,
    ToolboxDoc,
    ToolDoc,
)
from clctl.bundle.references import instance_id


def bundle_events(bundle: Bundle) -> list[ev.Event]:
    """Every event the bundle stands for: definitions first, then state, then bindings."""
    events: list[ev.Event] = []
    networks: list[NetworkDoc] = bundle.of(NetworkDoc)
    for net in networks:
        events.append(ev.NetworkUpserted(
            kn_id=net.id, name=net.name, description=net.description,
            grants=tuple(net.grants), resource_grants=tuple(net.resource_grants),
        ))
    schemas: list[SchemaDoc] = bundle.of(SchemaDoc)
    for schema in schemas:
        events.extend(_schema_events(schema))
    toolboxes: list[ToolboxDoc] = bundle.of(ToolboxDoc)
    servers: list[McpServerDoc] = bundle.of(McpServerDoc)
    for box in toolboxes:
        events.append(ev.ToolboxUpserted(
            id=box.id, name=box.name, description=box.description, kind=box.toolbox_kind,
            server_url=box.server_url, timeout_seconds=box.timeout_seconds,
            tools=tuple(_tool_spec(bundle, box, t) for t in box.tools),
        ))
    for server in servers:
        events.append(ev.McpServerUpserted(
            id=server.id, name=server.name, description=server.description, url=server.url,
            timeout_seconds=server.timeout_seconds,
            tools=tuple(ev.McpToolSpec(**t.model_dump()) for t in server.tools),
        ))
    for skill in bundle.of(SkillDoc):
        events.append(ev.SkillUpserted(
            id=skill.id, name=skill.name, description=skill.description,
            use_rule=skill.use_rule, entry=skill.entry, files=bundle.skill_files[skill.id],
            category=skill.category,
        ))
    events.extend(_data_resource_events(bundle.of(DataResourcesDoc)))
    for schema in schemas:
        for instances in bundle.of(InstancesDoc):
            if instances.network == schema.network:
                events.extend(_instance_events(instances, schema))
    events.extend(_lifecycle_events(bundle.of(LifecycleDoc), toolboxes, servers, networks))
    for bindings in bundle.of(BindingsDoc):
        events.append(ev.BindingsReplaced(
            kn_id=bindings.network,
            capabilities=tuple(
                ev.CapabilityRef(capability_type=c.type, capability_id=c.id, owner_id=c.owner)
                for c in bindings.capabilities
            ),
        ))
    return events


def _schema_events(schema: SchemaDoc) -> list[ev.Event]:
    kn = schema.network
    out: list[ev.Event] = [
        ev.ConceptGroupUpserted(kn_id=kn, id=g.id, name=g.name, description=g.description)
        for g in schema.concept_groups
    ]
    out.extend(
        ev.ObjectTypeUpserted(
            kn_id=kn, id=ot.id, name=ot.name, description=ot.description,
            primary_keys=tuple(ot.primary_keys), display_key=ot.display_key,
            properties=tuple(ot.properties), logic_properties=tuple(ot.logic_properties),
            concept_groups=tuple(ot.concept_groups), data_source=ot.data_source,
        )
        for ot in schema.object_types
    )
    out.extend(
        ev.RelationTypeUpserted(
            kn_id=kn, id=rt.id, name=rt.name, description=rt.description,
            source_object_type_id=rt.source, target_object_type_id=rt.target,
            concept_groups=tuple(rt.concept_groups),
        )
        for rt in schema.relation_types
    )
    out.extend(
        ev.ActionTypeUpserted(
            kn_id=kn, id=at.id, name=at.name, description=at.description,
            object_type_id=at.object_type, toolbox_id=at.toolbox, tool_id=at.tool,
            mode=at.mode, parameters=at.parameters, concept_groups=tuple(at.concept_groups),
        )
        for at in schema.action_types
    )
    return out


def _tool_spec(bundle: Bundle, box: ToolboxDoc, tool: ToolDoc) -> ev.ToolSpec:
    function = None
    if tool.function is not None:
        function = ev.FunctionCode(
            source=bundle.function_sources.get((box.id, tool.id), ""), handler=tool.function.handler,
            allow_network=tool.function.allow_network, cpu_seconds=tool.function.cpu_seconds,
            memory_mb=tool.function.memory_mb, wall_seconds=tool.function.wall_seconds,
        )
    return ev.ToolSpec(
        id=tool.id, name=tool.name, description=tool.description, use_rule=tool.use_rule,
        openapi=tool.openapi, function=function, input_schema=tool.input_schema,
    )


def _instance_events(doc: InstancesDoc, schema: SchemaDoc) -> list[ev.Event]:
    keys = {ot.id: ot.primary_keys for ot in schema.object_types}
    out: list[ev.Event] = []
    for ot_id, rows in doc.objects.items():
        out.extend(
            ev.ObjectInstanceUpserted(
                kn_id=doc.network, ot_id=ot_id, id=instance_id(row, keys[ot_id]), properties=row
            )
            for row in rows
        )
    for rt_id, pairs in doc.relations.items():
        out.extend(
            ev.RelationInstanceUpserted(kn_id=doc.network, rt_id=rt_id, source_id=s, target_id=t)
            for s, t in pairs
        )
    return out


def _lifecycle_events(
    lifecycles: list[LifecycleDoc],
    toolboxes: list[ToolboxDoc],
    servers: list[McpServerDoc],
    networks: list[NetworkDoc],
) -> list[ev.Event]:
    """Declared states; anything the bundle defines but does not mention is published/enabled."""
    box_states: dict[str, str] = {}
    server_states: dict[str, str] = {}
    disabled: set[tuple[str, str]] = set()
    proxies: dict[str, tuple[str, bool]] = {n.id: (f"proxy-{n.id}", True) for n in networks}
    for doc in lifecycles:
        box_states.update(doc.toolboxes)
        server_states.update(doc.mcp_servers)
        disabled.update((d.owner, d.tool) for d in doc.disabled_tools)
        proxies.update({kn: (p.proxy_id, p.synced) for kn, p in doc.proxies.items()})
    out: list[ev.Event] = []
    for box in toolboxes:
        out.append(ev.OwnerStateChanged(
            owner_kind="toolbox", owner_id=box.id, state=box_states.get(box.id, "published")
        ))
        out.extend(
            ev.ToolStateChanged(owner_id=box.id, tool_id=t.id, enabled=(box.id, t.id) not in disabled)
            for t in box.tools
        )
    for server in servers:
        out.append(ev.OwnerStateChanged(
            owner_kind="mcp_server", owner_id=server.id,
            state=server_states.get(server.id, "published"),
        ))
        out.extend(
            ev.ToolStateChanged(owner_id=server.id, tool_id=t.id, enabled=(server.id, t.id) not in disabled)
            for t in server.tools
        )
    out.extend(
        ev.ProxySyncChanged(kn_id=kn, proxy_id=proxy_id, synced=synced)
        for kn, (proxy_id, synced) in proxies.items()
    )
    return out


def _data_resource_events(docs: list[DataResourcesDoc]) -> list[ev.Event]:
    out: list[ev.Event] = []
    for doc in docs:
        out.extend(
            ev.DataResourceUpserted(
                id=r.id, name=r.name, description=r.description, resource_type=r.type,
                catalog_id=r.catalog_id, connector_type=r.connector_type, status=r.status,
                columns=tuple(r.columns), source=ev.DataFileSource(path=r.file),
            )
            for r in doc.resources
        )
        out.extend(ev.DataResourceGrantsReplaced(account=g.account, resource_ids=tuple(g.resources))
                   for g in doc.grants)
    return out
