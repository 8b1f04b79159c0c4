"""Sort specifications, sort keys and the sort values that cursors carry.

Instances are ordered by the sort fields in order, then by instance id (ascending) as the
stable tie-break. An instance lacking a sort field sorts after every instance having it,
whatever the direction. ``sort_values`` (one JSON scalar per sort field, then the id) is the
``search_after`` form of a position; :meth:`Ordering.decode` turns it back into a sort key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ontology_query.domain.errors import DomainError, QueryErrorCode
from ontology_query.domain.model import ObjectInstance, ObjectType, PropertyType
from ontology_query.domain.values import Canonical, JsonScalar, from_json, normalize, to_json

Direction = Literal["asc", "desc"]
SortKey = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class SortSpec:
    field: str
    direction: Direction = "asc"


def parse_sort(raw: object, object_type: ObjectType) -> tuple[SortSpec, ...]:
    """Validate a wire ``sort`` list against ``object_type``."""
    if raw is None:
        return ()
    if not isinstance(raw, (list, tuple)):
        raise DomainError(QueryErrorCode.INVALID_SORT, {"index": 0}, variant="shape")
    specs: list[SortSpec] = []
    for i, item in enumerate(raw):
        if isinstance(item, SortSpec):
            spec = item
        elif isinstance(item, dict) and isinstance(item.get("field"), str):
            direction = item.get("direction", "asc")
            if direction not in ("asc", "desc"):
                raise DomainError(
                    QueryErrorCode.INVALID_SORT,
                    {"field": item["field"], "direction": direction},
                    variant="direction",
                )
            spec = SortSpec(item["field"], "asc" if direction == "asc" else "desc")
        else:
            raise DomainError(QueryErrorCode.INVALID_SORT, {"index": i}, variant="shape")
        if object_type.get_property(spec.field) is None:
            raise DomainError(
                QueryErrorCode.UNKNOWN_FIELD,
                {"object_type_id": object_type.id, "field": spec.field, "path": f"sort[{i}]"},
            )
        specs.append(spec)
    return tuple(specs)


class _Desc:
    """Wraps a value so that ordering is reversed."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Desc) -> bool:
        return bool(other.value < self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and bool(self.value == other.value)

    def __hash__(self) -> int:
        return hash(self.value)


_MISSING_ASC = (True, 0)
_MISSING_DESC = (True, _Desc(0))


class Ordering:
    """The total order of one object type's instances under a sort specification."""

    def __init__(self, object_type: ObjectType, specs: Sequence[SortSpec]) -> None:
        self.specs = tuple(specs)
        self._fields: list[tuple[str, PropertyType, bool]] = []
        for spec in self.specs:
            prop = object_type.get_property(spec.field)
            assert prop is not None  # parse_sort checked it
            self._fields.append((spec.field, prop.type, spec.direction == "desc"))

    @property
    def is_default(self) -> bool:
        """True when instances are ordered by id alone."""
        return not self.specs

    def key(self, obj: ObjectInstance) -> SortKey:
        """Sort key of ``obj``."""
        if not self._fields:
            return (obj.id,)
        parts: list[Any] = []
        for field, ptype, desc in self._fields:
            parts.append(self._component(normalize(ptype, obj.properties.get(field)), desc))
        parts.append(obj.id)
        return tuple(parts)

    @staticmethod
    def _component(value: Canonical | None, desc: bool) -> tuple[bool, Any]:
        if value is None:
            return _MISSING_DESC if desc else _MISSING_ASC
        return (False, _Desc(value)) if desc else (False, value)

    def sort_values(self, obj: ObjectInstance) -> list[JsonScalar]:
        """The JSON form of ``obj``'s position: one value per sort field, then the id."""
        values: list[JsonScalar] = [
            to_json(normalize(ptype, obj.properties.get(field))) for field, ptype, _ in self._fields
        ]
        values.append(obj.id)
        return values

    def decode(self, values: object, cursor_name: str) -> SortKey:
        """Sort key from :meth:`sort_values` output; ``INVALID_CURSOR`` when malformed."""
        if not isinstance(values, list) or len(values) != len(self._fields) + 1:
            raise _malformed(cursor_name)
        *sort_values, obj_id = values
        if not isinstance(obj_id, str):
            raise _malformed(cursor_name)
        if not self._fields:
            return (obj_id,)
        parts: list[Any] = []
        for (_, ptype, desc), raw in zip(self._fields, sort_values, strict=True):
            try:
                parts.append(self._component(from_json(ptype, raw), desc))
            except ValueError:
                raise _malformed(cursor_name) from None
        parts.append(obj_id)
        return tuple(parts)


def _malformed(cursor_name: str) -> DomainError:
    return DomainError(QueryErrorCode.INVALID_CURSOR, {"cursor_name": cursor_name}, variant="malformed")
