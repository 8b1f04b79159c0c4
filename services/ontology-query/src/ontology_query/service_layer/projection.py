"""ontology-query's derived state: networks (with grants), schema and instances per network."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.access import NetworkAccess
from bkn_common.domain.catalog_state import from_ref_table, ref_table
from bkn_common.framework.rebuildable import Rebuildable
from ontology_query.domain.model import (
    DataProperty,
    ObjectInstance,
    ObjectType,
    RelationInstance,
    RelationType,
)
from ontology_query.domain.store import OntologyStore
from ontology_query.service_layer.data_resources import DataResources
from ontology_query.service_layer.executions import ActionExecutions


@dataclass
class NetworkSchemaExtras:
    """Schema parts the instance store does not need: full event records by id."""

    object_types: dict[str, ev.ObjectTypeUpserted] = field(default_factory=dict)
    relation_types: dict[str, ev.RelationTypeUpserted] = field(default_factory=dict)
    action_types: dict[str, ev.ActionTypeUpserted] = field(default_factory=dict)
    concept_groups: dict[str, ev.ConceptGroupUpserted] = field(default_factory=dict)


_SCHEMA_KINDS: dict[str, type[ev.Event]] = {
    "object_types": ev.ObjectTypeUpserted,
    "relation_types": ev.RelationTypeUpserted,
    "action_types": ev.ActionTypeUpserted,
    "concept_groups": ev.ConceptGroupUpserted,
}


@dataclass
class OntologyState:
    access: NetworkAccess = field(default_factory=NetworkAccess)
    stores: dict[str, OntologyStore] = field(default_factory=dict)
    schema: dict[str, NetworkSchemaExtras] = field(default_factory=dict)
    mounted: dict[str, list[ev.CapabilityRef]] = field(default_factory=dict)

    def mounted_counts(self, kn_id: str) -> dict[str, int] | None:
        """Mounted capabilities per type; None when no binding of the network was ever seen."""
        refs = self.mounted.get(kn_id)
        if refs is None:
            return None
        counts: dict[str, int] = {}
        for ref in refs:
            counts[ref.capability_type] = counts.get(ref.capability_type, 0) + 1
        return counts
    executions: ActionExecutions = field(default_factory=ActionExecutions)
    data: DataResources = field(default_factory=DataResources)
    network_updated: dict[str, str] = field(default_factory=dict)  # kn_id → last upsert (ISO)

    def snapshot(self) -> dict[str, Any]:
        sections: dict[str, Any] = {
            **self.access.snapshot(),
            "mounted": {k: [r.key for r in v] for k, v in self.mounted.items()},
            "action_executions": self.executions.snapshot(),
            **self.data.snapshot(),
        }
        for kn_id, extras in self.schema.items():
            sections[f"schema:{kn_id}"] = {
                kind: {k: v.model_dump(mode="json") for k, v in getattr(extras, kind).items()}
                for kind in _SCHEMA_KINDS
            }
        for kn_id, store in self.stores.items():
            sections[f"objects:{kn_id}"] = {
                ot_id: {oid: dict(o.properties) for oid, o in store.objects(ot_id).items()}
                for ot_id in store.object_types()
            }
            sections[f"relations:{kn_id}"] = {
                rt_id: sorted([r.source_id, r.target_id] for r in store.relations(rt_id))
                for rt_id in store.relation_types()
            }
        return sections

    def store(self, kn_id: str) -> OntologyStore:
        existing = self.stores.get(kn_id)
        if existing is None:
            existing = self.stores[kn_id] = OntologyStore(kn_id)
        return existing

    def extras(self, kn_id: str) -> NetworkSchemaExtras:
        return self.schema.setdefault(kn_id, NetworkSchemaExtras())

    # -- checkpoint (bkn_common.framework.checkpoint.Checkpointable) --------------------------------
    checkpoint_version = 2  # 2: data resources, grants and network update times

    def checkpoint_data(self) -> dict[str, Any]:
        return {
            "networks": self.access.checkpoint_data(),
            "schema": {
                kn_id: {kind: [e.model_dump(mode="json") for e in getattr(extras, kind).values()]
                        for kind in _SCHEMA_KINDS}
                for kn_id, extras in self.schema.items()
            },
            "stores": [[kn_id, store.instance_state()] for kn_id, store in self.stores.items()],
            "mounted": ref_table(self.mounted.values(), self.mounted),
            "executions": self.executions.state(),
            "data": self.data.checkpoint_data(),
            "network_updated": dict(self.network_updated),
        }

    def restore_checkpoint(self, data: dict[str, Any]) -> None:
        fresh = OntologyState(access=NetworkAccess.from_checkpoint(data["networks"]))
        for kn_id, _ in data["stores"]:
            fresh.store(kn_id)  # stores keep their first-seen order
        for kn_id, kinds in data["schema"].items():
            fresh.extras(kn_id)
            for kind, model in _SCHEMA_KINDS.items():
                for raw in kinds[kind]:
                    fresh._fold(model.model_validate(raw))
        for kn_id, state in data["stores"]:
            fresh.store(kn_id).restore_instances(state)
        fresh.mounted = from_ref_table(data["mounted"])
        fresh.executions = ActionExecutions.from_state(data["executions"])
        fresh.data = DataResources.from_checkpoint(data["data"])
        fresh.network_updated = dict(data["network_updated"])
        self.access, self.stores, self.schema = fresh.access, fresh.stores, fresh.schema
        self.mounted, self.executions = fresh.mounted, fresh.executions
        self.data, self.network_updated = fresh.data, fresh.network_updated

    def apply(self, record: ev.EventRecord) -> None:
        event = record.event
        if isinstance(event, ev.NetworkUpserted):
            self.network_updated[event.kn_id] = record.occurred_at.isoformat()
        if self.access.apply(record) or self.executions.apply(event) or self.data.apply(event):
            return
        self._fold(event)

    def _fold(self, event: ev.Event) -> None:
        match event:
            case ev.ObjectTypeUpserted():
                self.extras(event.kn_id).object_types[event.id] = event
                self.store(event.kn_id).upsert_object_type(ObjectType(
                    id=event.id, name=event.name, description=event.description,
                    primary_keys=event.primary_keys, display_key=event.display_key,
                    properties=tuple(
                        DataProperty(name=p.name, type=p.type,
                                     condition_operations=p.condition_operations, indexed=p.indexed)
                        for p in event.properties
                    ),
                    concept_groups=event.concept_groups,
                ))
            case ev.RelationTypeUpserted():
                self.extras(event.kn_id).relation_types[event.id] = event
                self.store(event.kn_id).upsert_relation_type(RelationType(
                    id=event.id, name=event.name, description=event.description,
                    source_object_type_id=event.source_object_type_id,
                    target_object_type_id=event.target_object_type_id,
                    concept_groups=event.concept_groups,
                ))
            case ev.ActionTypeUpserted():
                self.extras(event.kn_id).action_types[event.id] = event
            case ev.ConceptGroupUpserted():
                self.extras(event.kn_id).concept_groups[event.id] = event
            case ev.ObjectInstanceUpserted():
                self.store(event.kn_id).upsert_object(
                    ObjectInstance(event.ot_id, event.id, event.properties)
                )
            case ev.RelationInstanceUpserted():
                self.store(event.kn_id).upsert_relation(
                    RelationInstance(event.rt_id, event.source_id, event.target_id)
                )
            case ev.BindingsReplaced():
                self.mounted[event.kn_id] = list(dict.fromkeys(event.capabilities))
            case ev.BindingMounted():
                mounted = self.mounted.setdefault(event.kn_id, [])
                if event.capability not in mounted:
                    mounted.append(event.capability)
            case ev.BindingUnmounted():
                if event.capability in self.mounted.get(event.kn_id, []):
                    self.mounted[event.kn_id].remove(event.capability)


REBUILDABLE = Rebuildable(
    consumer="ontology-query",
    open_store=lambda: nullcontext(OntologyState()),
    default_url="http://127.0.0.1:30784",
)
"""The ``bkn.replay`` entry point: what `clctl replay ontology-query` rebuilds (bkn_common.framework.rebuildable)."""
