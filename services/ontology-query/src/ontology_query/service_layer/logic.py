"""Logic property values: metrics computed from the store, operator calls planned for the gateway.

A *metric* aggregates the instances related to an instance along one relation type::

    definition:
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

An *operator* is a tool bound to the property; this module only plans its calls (arguments
from ``constant_arguments``, then ``property_arguments`` ``{tool argument: property}``, then
the caller's parameters), because tools run in tool-executor, which the gateway calls.

Every parameter a logic property declares is required: the missing ones are refused together,
per property, with ``MISSING_INPUT_PARAMS`` before anything is computed or dispatched.

Object-type permissions apply as in ``query_object_instance`` (seed 003): a caller whose grants
on the requested type lack ``view_detail`` is refused (403 with ``permission_guidance``);
instances outside its row filter get an ``instance_not_visible`` error instead of values;
hidden (masked / name-only) properties never feed a computation (an operator argument taken
from one is left out; a metric aggregating over one on the related type is null); a metric
only counts related instances the caller may see (an unreadable related type refuses the
call). An affected result carries ``permission_guidance`` at its top level.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from bkn_common import events as ev
from bkn_common.errors import ApiError
from bkn_common.i18n import register_messages, render_message
from ontology_query.domain import DomainError, ObjectInstance, ObjectType, OntologyStore
from ontology_query.domain.instances import require_object_type
from ontology_query.domain.values import normalize, to_json
from ontology_query.service_layer.permissions import Caller, CallerPolicy
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import api_error, network_store
from ontology_query.service_layer.type_policy import ObjectTypePolicy, PropertyRule

RuleMap = Mapping[str, PropertyRule]

WINDOW_START = "start_time"
WINDOW_END = "end_time"
AGGREGATES = ("count", "sum", "avg", "min", "max")


class LogicCode:
    MISSING_INPUT_PARAMS = "MISSING_INPUT_PARAMS"
    INVALID_INPUT_PARAMS = "INVALID_INPUT_PARAMS"
    LOGIC_PROPERTY_NOT_FOUND = "logic_property_not_found"
    INVALID_INSTANCE_IDENTITY = "invalid_instance_identity"
    INSTANCE_NOT_FOUND = "instance_not_found"
    INSTANCE_NOT_VISIBLE = "instance_not_visible"
    DEFINITION_INVALID = "schema_definition_invalid"


register_messages({
    LogicCode.MISSING_INPUT_PARAMS: {
        "zh-CN": "缺少必需的输入参数：{summary}。"
                 "请在 dynamic_params（行动为 parameters）中补齐后重试。",
        "en-US": "Missing required input parameters: {summary}. Supply them in dynamic_params "
                 "(parameters for actions) and retry.",
    },
    LogicCode.INVALID_INPUT_PARAMS: {
        "zh-CN": "输入参数不合法：{reason}",
        "en-US": "Invalid input parameters: {reason}",
    },
    LogicCode.LOGIC_PROPERTY_NOT_FOUND: {
        "zh-CN": "对象类 {ot_id} 没有逻辑属性 {names}；可用：{available}。",
        "en-US": "Object type {ot_id} has no logic property {names}; available: {available}.",
    },
    LogicCode.INVALID_INSTANCE_IDENTITY: {
        "zh-CN": "第 {index} 个 _instance_identity 不合法：{reason}。"
                 "请使用查询结果中的 _instance_identity 原值。",
        "en-US": "_instance_identity #{index} is invalid: {reason}. Pass the _instance_identity "
                 "a query returned, unchanged.",
    },
    LogicCode.INSTANCE_NOT_FOUND: {
        "zh-CN": "对象类 {ot_id} 中不存在实例 {identities}。",
        "en-US": "Object type {ot_id} has no instance {identities}.",
    },
    LogicCode.INSTANCE_NOT_VISIBLE: {
        "zh-CN": "对象类 {ot_id} 的实例 {identities} 不在你的行访问范围内，不可见；"
                 "详见 permission_guidance。",
        "en-US": "Instance {identities} of object type {ot_id} is outside your row access and "
                 "not visible; see permission_guidance.",
    },
    LogicCode.DEFINITION_INVALID: {
        "zh-CN": "Schema 中 {what} 的定义不合法：{reason}；请联系知识网络管理员。",
        "en-US": "The schema definition of {what} is invalid: {reason}; "
                 "contact the network's administrator.",
    },
})


# -- shared lookups -------------------------------------------------------------------------

def object_type_of(store: OntologyStore, ot_id: str) -> ObjectType:
    try:
        return require_object_type(store, ot_id)
    except DomainError as err:
        raise api_error(err) from err


def canonical_identity(object_type: ObjectType, raw: object, index: int) -> dict[str, Any]:
    """``raw`` checked to name exactly the primary keys (returned in primary-key order)."""
    if not isinstance(raw, Mapping):
        raise invalid_identity(index, "it must be an object of primary key → value")
    keys = set(object_type.primary_keys)
    missing = [k for k in object_type.primary_keys if raw.get(k) is None]
    unknown = sorted(set(raw) - keys)
    if missing or unknown:
        parts = ([f"missing primary key(s) {', '.join(missing)}"] if missing else []) + (
            [f"unknown key(s) {', '.join(unknown)}"] if unknown else [])
        raise invalid_identity(index, "; ".join(parts), missing=missing, unknown=unknown)
    return {k: raw[k] for k in object_type.primary_keys}


def find_instance(
    store: OntologyStore, object_type: ObjectType, identity: Mapping[str, Any]
) -> ObjectInstance | None:
    """The instance whose id is its primary key values joined by ``|`` (as bundles key them)."""
    obj_id = "|".join(str(identity[k]) for k in object_type.primary_keys)
    return store.get_object(object_type.id, obj_id)


def identity_text(identities: Sequence[Mapping[str, Any]]) -> str:
    """``po_id=PO-1; po_id=PO-2`` for messages."""
    return "; ".join(", ".join(f"{k}={v}" for k, v in i.items()) for i in identities)


def invalid_identity(index: int, reason: str, **details: Any) -> ApiError:
    return ApiError(LogicCode.INVALID_INSTANCE_IDENTITY, 400,
                    params={"index": index, "reason": reason}, details={"index": index, **details})


def missing_params_error(missing: Sequence[tuple[str, str, Sequence[str]]]) -> ApiError:
    """``MISSING_INPUT_PARAMS`` for ``(owner key, owner name, missing names)`` triples."""
    summary = "; ".join(f"{name}: {', '.join(params)}" for _, name, params in missing)
    return ApiError(
        LogicCode.MISSING_INPUT_PARAMS, 400, params={"summary": summary},
        details={"missing": [{key: name, "params": [{"name": p} for p in params]}
                             for key, name, params in missing]},
    )


def invalid_params(reason: str, **details: Any) -> ApiError:
    return ApiError(LogicCode.INVALID_INPUT_PARAMS, 400, params={"reason": reason}, details=details)


def definition_invalid(what: str, reason: str) -> ApiError:
    return ApiError(LogicCode.DEFINITION_INVALID, 422, params={"what": what, "reason": reason},
                    details={"definition": what, "reason": reason})


# -- metrics --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Metric:
    relation_type: str
    forward: bool
    aggregate: Literal["count", "sum", "avg", "min", "max"]
    field: str | None = None
    time_field: str | None = None
    group_by: str | None = None

    @classmethod
    def parse(cls, prop: ev.LogicProperty, ot_id: str) -> Metric:
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
        return cls(d["relation_type"], direction == "forward", aggregate, d.get("field"),
                   d.get("time_field"), d.get("group_by"))


Window = tuple[datetime | None, datetime | None]


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


# -- the request ----------------------------------------------------------------------------

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
    metrics = {p.name: (Metric.parse(p, object_type.id), metric_window(p, params[p.name]))
               for p in definitions if p.kind == "metric"}
    operators = {p.name: _operator(p, object_type.id) for p in definitions if p.kind == "operator"}
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
                          "arguments": _operator_arguments(obj, arguments, params[name], hidden)})
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


def _operator(prop: ev.LogicProperty, ot_id: str) -> tuple[str, str, dict[str, Any]]:
    d = prop.definition
    if not isinstance(d.get("toolbox"), str) or not isinstance(d.get("tool"), str):
        raise definition_invalid(f"{ot_id}.{prop.name}", "an operator needs toolbox and tool")
    return d["toolbox"], d["tool"], {
        "constant": dict(d.get("constant_arguments") or {}),
        "property": dict(d.get("property_arguments") or {}),
    }


def _operator_arguments(
    obj: ObjectInstance, spec: Mapping[str, Any], params: Mapping[str, Any],
    hidden: Mapping[str, PropertyRule],
) -> dict[str, Any]:
    """Constant, then property (never a hidden one), then the caller's arguments."""
    arguments = dict(spec["constant"])
    for argument, prop in spec["property"].items():
        if prop in hidden:
            continue
        value = obj.properties.get(prop)
        if value is not None:
            arguments[argument] = value
    arguments.update(params)
    return arguments
