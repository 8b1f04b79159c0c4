"""Metric logic properties: the instances related to one instance along one relation type,
aggregated.

A metric's definition (an object type's logic property of kind ``metric``)::

    relation_type: rel_supplier_po   # required
    direction: forward               # forward (source → target, default) or backward
    aggregate: sum                   # count | sum | avg | min | max
    field: amount                    # the related instances' property (not for count)
    time_field: order_date           # optional: the window start_time..end_time applies to it
    group_by: currency               # optional: one value per distinct value of this property

The window is closed on both ends (like the ``range`` operator); with a window, related
instances lacking ``time_field`` are left out. ``count`` counts related instances; the other
aggregates skip instances whose ``field`` is null. An empty set counts 0 and sums 0; its
avg / min / max are null. Grouped values are ``[{"key": ..., "value": ...}]`` sorted by key.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.values import normalize, to_json

AGGREGATES = ("count", "sum", "avg", "min", "max")
Aggregate = Literal["count", "sum", "avg", "min", "max"]
Window = tuple[datetime | None, datetime | None]


@dataclass(frozen=True, slots=True)
class Metric:
    relation_type: str
    forward: bool
    aggregate: Aggregate
    field: str | None = None
    time_field: str | None = None
    group_by: str | None = None


def compute_metric(
    store: OntologyStore, obj: ObjectInstance, metric: Metric, window: Window,
    admit: Callable[[ObjectInstance], bool] | None = None,
) -> Any:
    """The metric's value for ``obj`` (a scalar, or ``[{key, value}]`` when grouped); only
    related instances ``admit`` accepts count (all when ``None``)."""
    relation = store.relation_type(metric.relation_type)
    if relation is None:
        return None if metric.group_by is None else []
    related_type_id = (
        relation.target_object_type_id if metric.forward else relation.source_object_type_id
    )
    related_type = store.object_type(related_type_id)
    if related_type is None:
        return None if metric.group_by is None else []
    groups: dict[Any, list[Any]] = {}
    for neighbour_id in store.neighbours(metric.relation_type, obj.id, forward=metric.forward):
        other = store.get_object(related_type_id, neighbour_id)
        if other is None or not _in_window(other, metric.time_field, window):
            continue
        if admit is not None and not admit(other):
            continue
        key = _value(other, related_type, metric.group_by) if metric.group_by else None
        value = _value(other, related_type, metric.field) if metric.field else None
        groups.setdefault(to_json(key), []).append(value)
    if metric.group_by is None:
        return _aggregate(metric.aggregate, groups.get(None, []))
    return [
        {"key": key, "value": _aggregate(metric.aggregate, values)}
        for key, values in sorted(groups.items(), key=lambda kv: (kv[0] is None, str(kv[0])))
    ]


def _in_window(obj: ObjectInstance, time_field: str | None, window: Window) -> bool:
    start, end = window
    if time_field is None or (start is None and end is None):
        return True
    moment = normalize("datetime", obj.properties.get(time_field))
    if not isinstance(moment, datetime):
        return False
    return (start is None or moment >= start) and (end is None or moment <= end)


def _value(obj: ObjectInstance, object_type: ObjectType, name: str | None) -> Any:
    if name is None:
        return None
    prop = object_type.get_property(name)
    raw = obj.properties.get(name)
    return normalize(prop.type, raw) if prop is not None else raw


def _aggregate(aggregate: str, values: list[Any]) -> Any:
    if aggregate == "count":
        return len(values)
    present = [v for v in values if v is not None]
    if aggregate == "sum":
        numbers = [v for v in present if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if all(isinstance(v, int) for v in numbers):
            return sum(numbers)
        return math.fsum(numbers)
    if not present:
        return None
    if aggregate == "avg":
        numbers = [v for v in present if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return math.fsum(numbers) / len(numbers) if numbers else None
    try:
        chosen = min(present) if aggregate == "min" else max(present)
    except TypeError:  # mixed types cannot be ordered
        return None
    return to_json(chosen)
