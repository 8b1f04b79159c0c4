"""The ontology of one knowledge network: types (schema) and instances (data).

Plain frozen dataclasses with slots: a network holds hundreds of thousands of instances,
and validation of untrusted input happens at the edges (event decoding, request parsing).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, get_args

from bkn_common.contracts.event_types.network import ALL_OPERATORS, PropertyType

__all__ = [
    "OPERATORS",
    "PROPERTY_TYPES",
    "DataProperty",
    "ObjectInstance",
    "ObjectType",
    "PropertyType",
    "RelationInstance",
    "RelationType",
]

PROPERTY_TYPES: frozenset[str] = frozenset(get_args(PropertyType))
OPERATORS: tuple[str, ...] = ALL_OPERATORS


@dataclass(frozen=True, slots=True, kw_only=True)
class DataProperty:
    """A stored property of an object type and the condition operators it accepts."""

    name: str
    type: PropertyType = "string"
    condition_operations: tuple[str, ...] = OPERATORS
    indexed: bool = False

    def __post_init__(self) -> None:
        if self.type not in PROPERTY_TYPES:
            raise ValueError(f"property {self.name}: unknown type {self.type!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ObjectType:
    """A class of business objects; ``primary_keys`` name the properties forming identity."""

    id: str
    name: str
    description: str = ""
    primary_keys: tuple[str, ...]
    display_key: str = ""
    properties: tuple[DataProperty, ...]
    concept_groups: tuple[str, ...] = ()

    def get_property(self, name: str) -> DataProperty | None:
        """The property called ``name``, or ``None``."""
        for prop in self.properties:
            if prop.name == name:
                return prop
        return None

    @property
    def indexed_properties(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.properties if p.indexed)


@dataclass(frozen=True, slots=True, kw_only=True)
class RelationType:
    """A directed relation between instances of two object types (possibly the same one)."""

    id: str
    name: str
    description: str = ""
    source_object_type_id: str
    target_object_type_id: str
    concept_groups: tuple[str, ...] = ()

    @property
    def is_self_referencing(self) -> bool:
        return self.source_object_type_id == self.target_object_type_id


@dataclass(frozen=True, slots=True)
class ObjectInstance:
    """One object: ``id`` is the string form of its primary key values, unique per type."""

    ot_id: str
    id: str
    properties: Mapping[str, Any] = field(hash=False)

    def identity(self, object_type: ObjectType) -> dict[str, Any]:
        """``_instance_identity``: primary key name → value."""
        props = self.properties
        return {key: props.get(key) for key in object_type.primary_keys}


@dataclass(frozen=True, slots=True)
class RelationInstance:
    """One link: ``source_id`` is an instance of the relation type's source object type."""

    rt_id: str
    source_id: str
    target_id: str
