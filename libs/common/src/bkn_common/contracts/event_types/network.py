"""Events describing what a knowledge network is: the network, its schema and instances."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts.event_types.base import Event, register_event

NetworkPermission = Literal["view_detail", "execute"]
PropertyType = Literal["string", "integer", "number", "boolean", "datetime"]
ALL_OPERATORS: tuple[str, ...] = (
    "==", "!=", ">", "<", ">=", "<=", "in", "not_in", "like", "not_like",
    "range", "out_range", "exist", "not_exist", "regex", "match",
)


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NetworkGrant(Frozen):
    """Network-level permissions of one account."""

    account: str
    permissions: tuple[NetworkPermission, ...]


class ResourceGrant(Frozen):
    """A grant on a sub-resource (object type, tool or skill) of a network.

    Such grants never stand in for the network's own ``view_detail`` / ``execute``.
    ``property_grants`` maps a property to ``masked`` or ``name_only``; ``row_filter`` is a
    condition tree limiting the rows the account sees.
    """

    account: str
    resource_type: Literal["object_type", "tool", "skill"]
    resource_id: str
    operations: tuple[str, ...] = ()
    property_grants: dict[str, Literal["masked", "name_only"]] = Field(default_factory=dict)
    row_filter: dict[str, Any] | None = None


@register_event
class NetworkUpserted(Event):
    type = "network.upserted"
    kn_id: str
    name: str
    description: str = ""
    grants: tuple[NetworkGrant, ...] = ()
    resource_grants: tuple[ResourceGrant, ...] = ()


class DataProperty(Frozen):
    name: str
    display_name: str = ""
    type: PropertyType = "string"
    description: str = ""
    condition_operations: tuple[str, ...] = ALL_OPERATORS
    indexed: bool = False
    mapped_field: str | None = None  # its physical column in the data source (None: name)


class DataSourceRef(Frozen):
    """The data resource an object type's instances come from (see ``DataResourceUpserted``)."""

    type: Literal["resource"] = "resource"
    id: str


class LogicProperty(Frozen):
    """A computed property: a metric over related instances or an operator bound to a tool."""

    name: str
    display_name: str = ""
    description: str = ""
    kind: Literal["metric", "operator"]
    parameters: tuple[str, ...] = ()
    definition: dict[str, Any] = Field(default_factory=dict)


@register_event
class ObjectTypeUpserted(Event):
    type = "schema.object_type.upserted"
    kn_id: str
    id: str
    name: str
    description: str = ""
    primary_keys: tuple[str, ...]
    display_key: str
    properties: tuple[DataProperty, ...]
    logic_properties: tuple[LogicProperty, ...] = ()
    concept_groups: tuple[str, ...] = ()
    data_source: DataSourceRef | None = None


@register_event
class RelationTypeUpserted(Event):
    type = "schema.relation_type.upserted"
    kn_id: str
    id: str
    name: str
    description: str = ""
    source_object_type_id: str
    target_object_type_id: str
    concept_groups: tuple[str, ...] = ()


@register_event
class ActionTypeUpserted(Event):
    type = "schema.action_type.upserted"
    kn_id: str
    id: str
    name: str
    description: str = ""
    object_type_id: str
    toolbox_id: str
    tool_id: str
    mode: Literal["once", "per_instance"] = "per_instance"
    parameters: dict[str, Any] = Field(default_factory=dict)
    concept_groups: tuple[str, ...] = ()


@register_event
class ConceptGroupUpserted(Event):
    type = "schema.concept_group.upserted"
    kn_id: str
    id: str
    name: str
    description: str = ""


@register_event
class ObjectInstanceUpserted(Event):
    type = "instance.object.upserted"
    kn_id: str
    ot_id: str
    id: str
    properties: dict[str, Any]


@register_event
class RelationInstanceUpserted(Event):
    type = "instance.relation.upserted"
    kn_id: str
    rt_id: str
    source_id: str
    target_id: str
