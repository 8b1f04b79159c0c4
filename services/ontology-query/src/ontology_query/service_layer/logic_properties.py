"""Logic property values: metric values computed from the store, and the operator calls the
gateway runs (metric arithmetic: ``domain/metrics.py``; operator arguments:
``logic_operators.py``).

Every parameter a logic property declares is required: the missing ones are refused together,
per property, with ``MISSING_INPUT_PARAMS`` before anything is computed or dispatched. A
metric takes ``start_time`` / ``end_time`` (ISO-8601 or epoch ms) as its window.

Object-type permissions apply as in ``query_object_instance`` (seed 003): a caller whose grants
on the requested type lack ``view_detail`` is refused (403 with ``permission_guidance``);
instances outside its row filter get an ``instance_not_visible`` error instead of values;
hidden (masked / name-only) properties never feed a computation (an operator argument taken
from one is left out; a metric aggregating over one on the related type is null); a metric
only counts related instances the caller may see (an unreadable related type refuses the
call). An affected result carries ``permission_guidance`` at its top level.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import render_message
from ontology_query.domain.metrics import AGGREGATES, Metric, Window, compute_metric
from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.values import normalize
from ontology_query.service_layer.identities import canonical_identity, find_instance, identity_text
from ontology_query.service_layer.logic_operators import operator_arguments, operator_of
from ontology_query.service_layer.permissions import Caller, CallerPolicy
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import (
    LogicCode,
    definition_invalid,
    invalid_params,
    missing_params_error,
    network_store,
    object_type_of,
)
from ontology_query.service_layer.type_policy import ObjectTypePolicy, PropertyRule

WINDOW_START = "start_time"
WINDOW_END = "end_time"
RuleMap = Mapping[str, PropertyRule]


@dataclass(frozen=True)
class LogicRequest:
    kn_id: str
    ot_id: str
    identities: list[Any]
    properties: list[str]
    dynamic_params: dict[str, dict[str, Any]]


def resolve_logic_properties(
    state: OntologyState, request: LogicRequest, caller: Caller
) -> dict[str, Any]:
    """Metric values per row and the operator calls the gateway runs, for ``caller``.

    ``rows[i]`` answers ``identities[i]``: ``{"_instance_identity", "values"}`` or, for an
    instance that does not exist or lies outside the caller's row filter,
    ``{"_instance_identity", "error"}``. ``operator_calls`` name the row and property each
    call fills. ``permission_guidance`` is present when the caller's grants affected the result.
    """
    language = caller.language
    store = network_store(state, request.kn_id)
    object_type = object_type_of(store, request.ot_id)
    definitions = _requested(state, request.kn_id, object_type, request.properties)
    params = _checked_params(definitions, request.dynamic_params)
    metrics = {p.name: (parse_metric(p, object_type.id), metric_window(p, params[p.name]))
               for p in definitions if p.kind == "metric"}
    operators = {p.name: operator_of(p, object_type.id) for p in definitions if p.kind == "operator"}
    for name, (metric, _) in metrics.items():
        if store.relation_type(metric.relation_type) is None:
            raise definition_invalid(f"{object_type.id}.{name}",
                                     f"relation type {metric.relation_type} does not exist")
    identities = [
        canonical_identity(object_type, raw, i) for i, raw in enumerate(request.identities)
    ]
    policies = CallerPolicy(state.access, store, caller)
    policy = policies.readable(object_type)
    visible = policies.row_test(object_type, policy)
    hidden = policy.property_rules
    affected: list[tuple[ObjectTypePolicy, RuleMap]] = [(policy, dict(hidden))]
    related = {name: _related(policies, metric, affected) for name, (metric, _) in metrics.items()}
    rows: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for index, identity in enumerate(identities):
        obj = find_instance(store, object_type, identity)
        if obj is None or not visible(obj):
            code = LogicCode.INSTANCE_NOT_FOUND if obj is None else LogicCode.INSTANCE_NOT_VISIBLE
            rows.append({"_instance_identity": identity, "error": {
                "code": code,
                "message": render_message(code, language, {
                    "ot_id": object_type.id, "identities": identity_text([identity])}),
            }})
            continue
        values = {}
        for name, (metric, window) in metrics.items():
            admit, usable = related[name]
            values[name] = (compute_metric(store, obj, metric, window, admit) if usable
                            else None if metric.group_by is None else [])
        rows.append({"_instance_identity": identity, "values": values})
        for name, (toolbox_id, tool_id, arguments) in operators.items():
            calls.append({"row": index, "property": name, "toolbox_id": toolbox_id,
                          "tool_id": tool_id,
                          "arguments": operator_arguments(obj, arguments, params[name], hidden)})
    body: dict[str, Any] = {
        "object_type_id": object_type.id,
        "properties": [{"name": p.name, "kind": p.kind} for p in definitions],
        "rows": rows,
        "operator_calls": calls,
    }
    # the requested type's guidance, else the first related type's a metric was narrowed by
    guidance = next(
        (g for p, h in affected if (g := policies.narrowed(p, h)) is not None), None)
    if guidance is not None:
        body["permission_guidance"] = guidance
    return body


def _related(
    policies: CallerPolicy, metric: Metric, affected: list[tuple[ObjectTypePolicy, RuleMap]]
) -> tuple[Callable[[ObjectInstance], bool] | None, bool]:
    """(row test, usable) for the instances ``metric`` aggregates: not usable when it reads a
    property the caller sees only masked / by name there (403 when it may not read them)."""
    relation = policies.store.relation_type(metric.relation_type)
    related_id = None if relation is None else (
        relation.target_object_type_id if metric.forward else relation.source_object_type_id)
    related_type = policies.store.object_type(related_id) if related_id else None
    if related_type is None:
        return None, True
    policy = policies.readable(related_type)
    used = {f for f in (metric.field, metric.group_by, metric.time_field) if f}
    hidden = policy.hidden_properties(used)
    affected.append((policy, hidden))
    return policies.row_test(related_type, policy), not hidden


def _requested(
    state: OntologyState, kn_id: str, object_type: ObjectType, names: Sequence[str]
) -> list[ev.LogicProperty]:
    extras = state.schema.get(kn_id)
    event = extras.object_types.get(object_type.id) if extras else None
    declared = {p.name: p for p in (event.logic_properties if event else ())}
    unknown = [n for n in names if n not in declared]
    if unknown:
        raise ApiError(
            LogicCode.LOGIC_PROPERTY_NOT_FOUND, 404,
            params={"ot_id": object_type.id, "names": ", ".join(unknown),
                    "available": ", ".join(declared) or "-"},
            details={"ot_id": object_type.id, "unknown": unknown, "available": list(declared)},
        )
    return [declared[n] for n in dict.fromkeys(names)]


def _checked_params(
    definitions: Sequence[ev.LogicProperty], given: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per property, the caller's parameters: all declared ones present, nothing else."""
    names = {p.name for p in definitions}
    stray = sorted(set(given) - names)
    if stray:
        raise invalid_params(f"dynamic_params names properties not requested: {', '.join(stray)}",
                             unexpected_properties=stray)
    missing: list[tuple[str, str, list[str]]] = []
    for prop in definitions:
        supplied = given.get(prop.name) or {}
        extra = sorted(set(supplied) - set(prop.parameters))
        if extra:
            raise invalid_params(
                f"{prop.name} takes no parameter {', '.join(extra)} "
                f"(declared: {', '.join(prop.parameters) or '-'})",
                property=prop.name, unexpected=extra, declared=list(prop.parameters))
        absent = [p for p in prop.parameters if supplied.get(p) is None]
        if absent:
            missing.append(("property", prop.name, absent))
    if missing:
        raise missing_params_error(missing)
    return {p.name: dict(given.get(p.name) or {}) for p in definitions}


def parse_metric(prop: ev.LogicProperty, ot_id: str) -> Metric:
    """The metric a logic property of kind ``metric`` defines (422 when malformed)."""
    d = prop.definition
    what = f"{ot_id}.{prop.name}"
    aggregate = d.get("aggregate", "count")
    direction = d.get("direction", "forward")
    if not isinstance(d.get("relation_type"), str):
        raise definition_invalid(what, "relation_type is required")
    if aggregate not in AGGREGATES:
        raise definition_invalid(what, f"aggregate must be one of {', '.join(AGGREGATES)}")
    if direction not in ("forward", "backward"):
        raise definition_invalid(what, "direction must be forward or backward")
    if aggregate != "count" and not isinstance(d.get("field"), str):
        raise definition_invalid(what, f"aggregate {aggregate} needs field")
    return Metric(d["relation_type"], direction == "forward", aggregate, d.get("field"),
                  d.get("time_field"), d.get("group_by"))


def metric_window(prop: ev.LogicProperty, params: Mapping[str, Any]) -> Window:
    """The caller's ``start_time`` / ``end_time`` as datetimes (ISO-8601 or epoch ms)."""
    bounds: list[datetime | None] = []
    for name in (WINDOW_START, WINDOW_END):
        raw = params.get(name)
        value = normalize("datetime", raw) if raw is not None else None
        if raw is not None and not isinstance(value, datetime):
            raise invalid_params(
                f"{prop.name}.{name} must be an ISO-8601 time or epoch milliseconds",
                property=prop.name, param=name, value=raw)
        bounds.append(value if isinstance(value, datetime) else None)
    start, end = bounds
    if start is not None and end is not None and start > end:
        raise invalid_params(f"{prop.name}: start_time is after end_time", property=prop.name)
    return start, end
