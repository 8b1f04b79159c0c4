"""In-memory ontology of one knowledge network, with the indexes the queries need.

State is derived (from schema and instance events), so every mutation is idempotent:
applying the same upsert or removal twice leaves the store as after the first.

Instances are kept even when their type is not (yet) defined — schema and instance events
travel on different topics and may arrive in any order — but queries only see instances of
defined types, and a relation instance only joins two instances that both exist. Removing a
type removes its instances (object type) or its links (relation type) too.

Indexes:
* adjacency per relation type, both directions (``source → [targets]``, ``target → [sources]``),
  in insertion order, plus the set of links for O(1) idempotency checks;
* per object type, a hash index for each property marked ``indexed``, keyed by the canonical
  value (see :mod:`values`), serving ``==`` and ``in``;
* per object type, the sorted list of instance ids (built lazily, dropped on insert/delete),
  serving unfiltered pages in the default order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ontology_query.domain.model import ObjectInstance, ObjectType, RelationInstance, RelationType
from ontology_query.domain.values import normalizer

_EMPTY: tuple[str, ...] = ()


class HashIndex:
    """Canonical value → ids. A value held by one id stores the bare id (saves a set)."""

    __slots__ = ("_buckets",)

    def __init__(self) -> None:
        self._buckets: dict[Hashable, str | set[str]] = {}

    def add(self, value: Hashable, obj_id: str) -> None:
        bucket = self._buckets.get(value)
        if bucket is None:
            self._buckets[value] = obj_id
        elif isinstance(bucket, str):
            if bucket != obj_id:
                self._buckets[value] = {bucket, obj_id}
        else:
            bucket.add(obj_id)

    def discard(self, value: Hashable, obj_id: str) -> None:
        bucket = self._buckets.get(value)
        if bucket is None:
            return
        if isinstance(bucket, str):
            if bucket == obj_id:
                del self._buckets[value]
            return
        bucket.discard(obj_id)
        if len(bucket) == 1:
            self._buckets[value] = next(iter(bucket))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HashIndex) and self._buckets == other._buckets

    def pairs(self) -> list[tuple[Hashable, str | list[str]]]:
        """``(value, id or ids)`` per bucket, as plain data (checkpoints)."""
        return [(v, b if isinstance(b, str) else list(b)) for v, b in self._buckets.items()]

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[Hashable, str | list[str]]]) -> HashIndex:
        index = cls()
        index._buckets = {v: b if isinstance(b, str) else set(b) for v, b in pairs}
        return index

    __hash__ = None  # type: ignore[assignment]  # mutable

    def lookup(self, values: Iterable[Hashable]) -> set[str]:
        found: set[str] = set()
        for value in values:
            bucket = self._buckets.get(value)
            if bucket is None:
                continue
            if isinstance(bucket, str):
                found.add(bucket)
            else:
                found |= bucket
        return found


class OntologyStore:
    """Schema, instances and indexes of ONE knowledge network."""

    def __init__(self, kn_id: str = "") -> None:
        self.kn_id = kn_id
        self._object_types: dict[str, ObjectType] = {}
        self._relation_types: dict[str, RelationType] = {}
        self._objects: dict[str, dict[str, ObjectInstance]] = {}
        self._indexes: dict[str, dict[str, HashIndex]] = {}
        self._sorted_ids: dict[str, list[str]] = {}
        self._links: dict[str, set[tuple[str, str]]] = {}
        self._out: dict[str, dict[str, list[str]]] = {}
        self._in: dict[str, dict[str, list[str]]] = {}

    # -- schema -------------------------------------------------------------------------

    def upsert_object_type(self, object_type: ObjectType) -> None:
        """Define or redefine an object type; re-index its instances if indexing changed."""
        old = self._object_types.get(object_type.id)
        if old == object_type:
            return
        self._object_types[object_type.id] = object_type
        if old is None or _index_spec(old) != _index_spec(object_type):
            self._rebuild_indexes(object_type)

    def remove_object_type(self, ot_id: str) -> None:
        """Forget an object type and its instances."""
        self._object_types.pop(ot_id, None)
        self._objects.pop(ot_id, None)
        self._indexes.pop(ot_id, None)
        self._sorted_ids.pop(ot_id, None)

    def upsert_relation_type(self, relation_type: RelationType) -> None:
        """Define or redefine a relation type (its links are kept)."""
        self._relation_types[relation_type.id] = relation_type

    def remove_relation_type(self, rt_id: str) -> None:
        """Forget a relation type and its links."""
        self._relation_types.pop(rt_id, None)
        self._links.pop(rt_id, None)
        self._out.pop(rt_id, None)
        self._in.pop(rt_id, None)

    def object_type(self, ot_id: str) -> ObjectType | None:
        return self._object_types.get(ot_id)

    def relation_type(self, rt_id: str) -> RelationType | None:
        return self._relation_types.get(rt_id)

    def object_types(self) -> Mapping[str, ObjectType]:
        return self._object_types

    def relation_types(self) -> Mapping[str, RelationType]:
        return self._relation_types

    # -- object instances ---------------------------------------------------------------

    def upsert_object(self, obj: ObjectInstance) -> None:
        """Insert or replace an instance (keyed by type and id)."""
        objects = self._objects.get(obj.ot_id)
        if objects is None:
            objects = self._objects[obj.ot_id] = {}
        old = objects.get(obj.id)
        if old is not None:
            if old.properties == obj.properties:
                return
            self._unindex(old)
        else:
            self._sorted_ids.pop(obj.ot_id, None)
        objects[obj.id] = obj
        self._index(obj)

    def remove_object(self, ot_id: str, obj_id: str) -> None:
        """Delete an instance; links naming it stay but no longer lead anywhere."""
        objects = self._objects.get(ot_id)
        old = objects.pop(obj_id, None) if objects is not None else None
        if old is not None:
            self._unindex(old)
            self._sorted_ids.pop(ot_id, None)

    def get_object(self, ot_id: str, obj_id: str) -> ObjectInstance | None:
        objects = self._objects.get(ot_id)
        return objects.get(obj_id) if objects is not None else None

    def objects(self, ot_id: str) -> Mapping[str, ObjectInstance]:
        """Instances of ``ot_id`` by id (empty when the type is not defined)."""
        if ot_id not in self._object_types:
            return {}
        return self._objects.get(ot_id, {})

    def sorted_ids(self, ot_id: str) -> Sequence[str]:
        """Ids of ``ot_id`` in ascending order (cached until an insert or delete)."""
        ids = self._sorted_ids.get(ot_id)
        if ids is None:
            ids = self._sorted_ids[ot_id] = sorted(self.objects(ot_id))
        return ids

    def indexed_lookup(self, ot_id: str, field: str, values: Iterable[Hashable]) -> set[str] | None:
        """Ids whose canonical ``field`` equals one of ``values``; ``None`` if not indexed."""
        index = self._indexes.get(ot_id, {}).get(field)
        return None if index is None else index.lookup(values)

    # -- relation instances -------------------------------------------------------------

    def upsert_relation(self, rel: RelationInstance) -> None:
        """Link ``source_id`` to ``target_id`` by ``rt_id`` (no-op when already linked)."""
        links = self._links.get(rel.rt_id)
        if links is None:
            links = self._links[rel.rt_id] = set()
            self._out[rel.rt_id] = {}
            self._in[rel.rt_id] = {}
        key = (rel.source_id, rel.target_id)
        if key in links:
            return
        links.add(key)
        _append(self._out[rel.rt_id], rel.source_id, rel.target_id)
        _append(self._in[rel.rt_id], rel.target_id, rel.source_id)

    def remove_relation(self, rel: RelationInstance) -> None:
        """Unlink (no-op when not linked)."""
        links = self._links.get(rel.rt_id)
        key = (rel.source_id, rel.target_id)
        if links is None or key not in links:
            return
        links.remove(key)
        _remove(self._out[rel.rt_id], rel.source_id, rel.target_id)
        _remove(self._in[rel.rt_id], rel.target_id, rel.source_id)

    def neighbours(self, rt_id: str, obj_id: str, *, forward: bool) -> Sequence[str]:
        """Targets of ``obj_id`` (forward) or its sources (backward) under ``rt_id``."""
        adjacency = (self._out if forward else self._in).get(rt_id)
        if adjacency is None:
            return _EMPTY
        return adjacency.get(obj_id, _EMPTY)

    def has_relation(self, rel: RelationInstance) -> bool:
        return (rel.source_id, rel.target_id) in self._links.get(rel.rt_id, ())

    def relations(self, rt_id: str) -> Iterator[RelationInstance]:
        for source_id, target_id in self._links.get(rt_id, ()):
            yield RelationInstance(rt_id, source_id, target_id)

    # -- checkpoints --------------------------------------------------------------------

    def instance_state(self) -> dict[str, Any]:
        """Instances (of defined types or not), hash indexes and links as plain data, in
        insertion order: ``objects`` per type ``[[id, properties], ...]``, ``indexes`` per type
        and property its buckets, ``links`` per relation type its adjacency both ways (so a
        restored store walks neighbours in the same order)."""
        return {
            "objects": {ot: [[o.id, o.properties] for o in objs.values()]
                        for ot, objs in self._objects.items()},
            "indexes": {ot: {name: index.pairs() for name, index in fields.items()}
                        for ot, fields in self._indexes.items()},
            "links": {rt: [self._out[rt], self._in[rt]] for rt in self._links},
        }

    def restore_instances(self, state: Mapping[str, Any]) -> None:
        """Fill this store (schema defined, no instances yet) from :meth:`instance_state`."""
        if self._objects or self._links:
            raise ValueError("restore_instances needs a store without instances")
        indexes: dict[str, dict[str, HashIndex]] = {}
        for ot_id, fields in state["indexes"].items():
            object_type = self._object_types[ot_id]
            indexes[ot_id] = {}
            for name, pairs in fields.items():
                prop = object_type.get_property(name)
                if prop is None:
                    raise ValueError(f"index of an unknown property {ot_id}.{name}")
                if prop.type == "datetime":  # JSON has no datetimes: parse the canonical text
                    parse = normalizer("datetime")
                    pairs = [(parse(v), ids) for v, ids in pairs]
                indexes[ot_id][name] = HashIndex.from_pairs(pairs)
        objects = {ot_id: {obj_id: ObjectInstance(ot_id, obj_id, props) for obj_id, props in rows}
                   for ot_id, rows in state["objects"].items()}
        links = {rt_id: ({(s, t) for s, targets in out.items() for t in targets}, out, into)
                 for rt_id, (out, into) in state["links"].items()}
        self._objects, self._indexes = objects, {**self._indexes, **indexes}
        self._sorted_ids.clear()
        for rt_id, (pairs_set, out, into) in links.items():
            self._links[rt_id], self._out[rt_id], self._in[rt_id] = pairs_set, out, into

    def counts(self) -> dict[str, int]:
        return {
            "object_types": len(self._object_types),
            "relation_types": len(self._relation_types),
            "objects": sum(len(v) for v in self._objects.values()),
            "relations": sum(len(v) for v in self._links.values()),
        }

    # -- index maintenance --------------------------------------------------------------

    def _rebuild_indexes(self, object_type: ObjectType) -> None:
        names = object_type.indexed_properties
        self._indexes[object_type.id] = {name: HashIndex() for name in names}
        for obj in self._objects.get(object_type.id, {}).values():
            self._index(obj)

    def _index(self, obj: ObjectInstance) -> None:
        self._apply_index(obj, add=True)

    def _unindex(self, obj: ObjectInstance) -> None:
        self._apply_index(obj, add=False)

    def _apply_index(self, obj: ObjectInstance, *, add: bool) -> None:
        indexes = self._indexes.get(obj.ot_id)
        object_type = self._object_types.get(obj.ot_id)
        if not indexes or object_type is None:
            return
        for prop in object_type.properties:
            index = indexes.get(prop.name)
            if index is None:
                continue
            raw = obj.properties.get(prop.name)
            value = None if raw is None else normalizer(prop.type)(raw)
            if value is None:
                continue
            if add:
                index.add(value, obj.id)
            else:
                index.discard(value, obj.id)


def _index_spec(object_type: ObjectType) -> tuple[tuple[str, str], ...]:
    return tuple((p.name, p.type) for p in object_type.properties if p.indexed)


def _append(adjacency: dict[str, list[str]], key: str, value: str) -> None:
    bucket = adjacency.get(key)
    if bucket is None:
        adjacency[key] = [value]
    else:
        bucket.append(value)


def _remove(adjacency: dict[str, list[str]], key: str, value: str) -> None:
    bucket = adjacency.get(key)
    if bucket is not None:
        bucket.remove(value)
        if not bucket:
            del adjacency[key]
