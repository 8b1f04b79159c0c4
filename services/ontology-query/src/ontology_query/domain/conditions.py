"""Condition trees: parse (shape), bind to an object type (fields, operators, values), plan.

Wire shape (as in the object-instance and subgraph APIs)::

    {"operation": "and", "sub_conditions": [
        {"field": "city", "operation": "==", "value": "Paris", "value_from": "const"},
        {"field": "deleted_at", "operation": "not_exist"}]}

:func:`parse_condition` checks the shape without a schema; :func:`bind_condition` checks it
against an :class:`ObjectType` and returns a :class:`BoundCondition` whose ``predicate`` tests
an instance's properties and whose ``candidates`` narrows the scan with hash indexes when the
tree is an AND (or a single leaf) containing an indexed ``==``/``in`` leaf — OR nodes whose
branches are all indexable are served by a union. Leaf semantics live in :mod:`operators`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ontology_query.domain.errors import DomainError, QueryErrorCode, condition_error, where
from ontology_query.domain.model import ObjectType
from ontology_query.domain.operators import (
    LIST_OPERATORS,
    NO_VALUE_OPERATORS,
    RANGE_OPERATORS,
    SUPPORTED_OPERATORS,
    Predicate,
    compile_leaf,
)

LOGICAL_OPERATORS = ("and", "or")


@dataclass(frozen=True, slots=True)
class Leaf:
    """``field operation value``; ``value`` is ``None`` for ``exist``/``not_exist``."""

    field: str
    operation: str
    value: Any = None


@dataclass(frozen=True, slots=True)
class Logical:
    operation: Literal["and", "or"]
    sub_conditions: tuple[Condition, ...]


Condition = Leaf | Logical
Lookup = Callable[[str, Iterable[Hashable]], "set[str] | None"]
_Plan = Callable[[Lookup], "set[str] | None"]


def parse_condition(raw: object, path: Sequence[str | int] = ()) -> Condition | None:
    """Validate the shape of a wire condition; ``None``/``{}`` means no condition."""
    if raw is None or isinstance(raw, (Leaf, Logical)):
        return raw
    if not isinstance(raw, Mapping):
        raise condition_error(path, "shape")
    if not raw:
        return None
    operation = raw.get("operation")
    if operation in LOGICAL_OPERATORS:
        subs = raw.get("sub_conditions")
        if not isinstance(subs, list) or not subs:
            raise condition_error(path, "sub_conditions", operation=operation)
        parsed = []
        for i, sub in enumerate(subs):
            child = parse_condition(sub, (*path, "sub_conditions", i))
            if child is None:
                raise condition_error((*path, "sub_conditions", i), "shape")
            parsed.append(child)
        return Logical("and" if operation == "and" else "or", tuple(parsed))
    return _parse_leaf(raw, path)


def _parse_leaf(raw: Mapping[str, Any], path: Sequence[str | int]) -> Leaf:
    field, operation = raw.get("field"), raw.get("operation")
    if not isinstance(field, str) or not field or not isinstance(operation, str):
        raise condition_error(path, "leaf")
    if operation not in SUPPORTED_OPERATORS:
        supported = [*LOGICAL_OPERATORS, *SUPPORTED_OPERATORS]
        raise condition_error(path, "unknown_operation", operation=operation, supported=supported)
    has_value, has_from = "value" in raw, "value_from" in raw
    value, value_from = raw.get("value"), raw.get("value_from")
    if operation in NO_VALUE_OPERATORS:
        if value is not None:
            raise condition_error(path, "value_forbidden", operation=operation)
        if value_from is not None and value_from != "const":
            raise condition_error(path, "value_from", value_from=value_from)
        return Leaf(field, operation)
    if has_value != has_from:
        raise condition_error(path, "value_pairing", operation=operation)
    if has_from and value_from != "const":
        raise condition_error(path, "value_from", value_from=value_from)
    if operation in LIST_OPERATORS or operation in RANGE_OPERATORS:
        if not isinstance(value, list) or not all(_is_scalar(v) for v in value):
            raise condition_error(path, "value_list", operation=operation)
        if operation in RANGE_OPERATORS and len(value) != 2:
            raise condition_error(path, "value_range", operation=operation)
        return Leaf(field, operation, tuple(value))
    if not _is_scalar(value):
        raise condition_error(path, "value_scalar", operation=operation)
    return Leaf(field, operation, value)


def _is_scalar(value: object) -> bool:
    return value is not None and not isinstance(value, (list, dict))


@dataclass(frozen=True, slots=True)
class BoundCondition:
    """A condition checked against one object type, ready to evaluate."""

    condition: Condition
    predicate: Predicate
    _plan: _Plan

    def candidates(self, lookup: Lookup) -> set[str] | None:
        """Ids that may match, from hash indexes; ``None`` when a full scan is needed."""
        return self._plan(lookup)

    @property
    def fingerprint(self) -> str:
        """Stable digest of the condition (binds cursors to the query that issued them)."""
        return hashlib.sha256(repr(self.condition).encode()).hexdigest()[:16]


def bind_condition(raw: object, object_type: ObjectType) -> BoundCondition | None:
    """Parse (if needed) and bind ``raw`` to ``object_type``; ``None`` when there is none."""
    condition = parse_condition(raw)
    if condition is None:
        return None
    predicate, plan = _bind(condition, object_type, ())
    return BoundCondition(condition, predicate, plan)


def _bind(
    node: Condition, object_type: ObjectType, path: tuple[str | int, ...]
) -> tuple[Predicate, _Plan]:
    if isinstance(node, Logical):
        bound = [
            _bind(sub, object_type, (*path, "sub_conditions", i))
            for i, sub in enumerate(node.sub_conditions)
        ]
        preds = [p for p, _ in bound]
        plans = [q for _, q in bound]
        if node.operation == "and":
            return _all(preds), _intersect(plans)
        return _any(preds), _union(plans)
    prop = object_type.get_property(node.field)
    if prop is None:
        raise DomainError(
            QueryErrorCode.UNKNOWN_FIELD,
            {"object_type_id": object_type.id, "field": node.field, "path": where(path)},
        )
    if node.operation not in prop.condition_operations:
        raise DomainError(
            QueryErrorCode.OPERATOR_NOT_ALLOWED,
            {
                "field": node.field,
                "operation": node.operation,
                "allowed": list(prop.condition_operations),
                "path": where(path),
            },
        )
    predicate, keys = compile_leaf(prop, node.operation, node.value, path)
    if keys is None or not prop.indexed:
        return predicate, _no_plan
    field = prop.name
    return predicate, lambda lookup: lookup(field, keys)


def _no_plan(_: Lookup) -> set[str] | None:
    return None


def _intersect(plans: list[_Plan]) -> _Plan:
    def plan(lookup: Lookup) -> set[str] | None:
        sets = [s for s in (p(lookup) for p in plans) if s is not None]
        if not sets:
            return None
        sets.sort(key=len)
        result = set(sets[0])
        for other in sets[1:]:
            result &= other
        return result

    return plan


def _union(plans: list[_Plan]) -> _Plan:
    def plan(lookup: Lookup) -> set[str] | None:
        result: set[str] = set()
        for p in plans:
            found = p(lookup)
            if found is None:
                return None
            result |= found
        return result

    return plan


def _all(preds: list[Predicate]) -> Predicate:
    def predicate(props: Mapping[str, Any]) -> bool:
        return all(p(props) for p in preds)

    return predicate


def _any(preds: list[Predicate]) -> Predicate:
    def predicate(props: Mapping[str, Any]) -> bool:
        return any(p(props) for p in preds)

    return predicate
