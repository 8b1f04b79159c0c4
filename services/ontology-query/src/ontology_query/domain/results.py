"""Result shapes shared by instance and subgraph queries, with their JSON renderings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.values import JsonScalar

NodeKey = tuple[str, str]
"""(object type id, instance id): instance ids are unique only within their type."""

EdgeDirection = Literal["forward", "backward"]


def node_key_text(key: NodeKey) -> str:
    """The JSON object key of a node: ``"<object_type_id>:<instance id>"``."""
    return f"{key[0]}:{key[1]}"


@dataclass(frozen=True, slots=True)
class ObjectView:
    """An instance as returned: its properties plus ``_instance_identity``."""

    object_type_id: str
    id: str
    identity: dict[str, Any]
    properties: Mapping[str, Any] = field(hash=False)

    @classmethod
    def of(cls, obj: ObjectInstance, object_type: ObjectType) -> ObjectView:
        return cls(obj.ot_id, obj.id, obj.identity(object_type), obj.properties)

    @property
    def key(self) -> NodeKey:
        return (self.object_type_id, self.id)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.properties,
            "_object_type_id": self.object_type_id,
            "_instance_identity": dict(self.identity),
        }


@dataclass(frozen=True, slots=True)
class PathEdge:
    """One relation instance on a path; ``direction`` is how the path walked it.

    ``source_id``/``target_id`` follow the relation type's definition whatever the walk
    direction: ``backward`` means the path went from the target to the source.
    """

    relation_type_id: str
    source_object_type_id: str
    source_id: str
    target_object_type_id: str
    target_id: str
    direction: EdgeDirection

    def to_json(self) -> dict[str, str]:
        return {
            "relation_type_id": self.relation_type_id,
            "source_object_type_id": self.source_object_type_id,
            "source_id": self.source_id,
            "target_object_type_id": self.target_object_type_id,
            "target_id": self.target_id,
            "direction": self.direction,
        }


RelationPath = tuple[PathEdge, ...]


@dataclass(frozen=True, slots=True)
class Subgraph:
    """Objects and the relation paths joining them.

    ``node_objects`` (path templates only) lists, per template node, the keys of the objects
    at that position. ``truncated`` tells that a path cap cut the enumeration short.
    """

    objects: dict[NodeKey, ObjectView]
    relation_paths: list[RelationPath]
    isolated_objects: dict[NodeKey, ObjectView] = field(default_factory=dict)
    total_count: int | None = None
    search_after: list[JsonScalar] | None = None
    node_objects: tuple[tuple[NodeKey, ...], ...] | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "objects": {node_key_text(k): v.to_json() for k, v in self.objects.items()},
            "relation_paths": [[edge.to_json() for edge in path] for path in self.relation_paths],
            "isolated_objects": {
                node_key_text(k): v.to_json() for k, v in self.isolated_objects.items()
            },
            "current_path_number": len(self.relation_paths),
            "truncated": self.truncated,
        }
        if self.total_count is not None:
            body["total_count"] = self.total_count
            body["search_after"] = self.search_after
        if self.node_objects is not None:
            body["node_objects"] = [[node_key_text(k) for k in keys] for keys in self.node_objects]
        return body
