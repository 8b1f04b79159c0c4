"""Actions: binding an action type's parameters to instances (the executions view is
``executions.py``).

Binding. Each parameter of an action type says where its value comes from::

    order_id: {value_from: property, value: po_id}     # the instance's property
    base:     {value_from: const, value: CNY}          # a constant
    channel:  {value_from: input, required: false}     # the caller's ``parameters`` (required
                                                       # unless ``required: false``)

``per_instance`` plans one tool call per target; ``once`` plans a single call in which a
property-bound parameter receives the list of the targets' values (in target order).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import register_messages
from ontology_query.domain.model import ObjectType
from ontology_query.domain.store import OntologyStore
from ontology_query.service_layer.identities import canonical_identity, find_instance, identity_text
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.refusals import (
    LogicCode,
    definition_invalid,
    invalid_identity,
    invalid_params,
    missing_params_error,
    network_store,
    object_type_of,
)

MAX_SCANNED_TARGETS = 100
ACTION_TYPE_NOT_FOUND = "action_type_not_found"

register_messages({
    ACTION_TYPE_NOT_FOUND: {
        "zh-CN": "知识网络 {kn_id} 中不存在行动类 {action_type_id}。",
        "en-US": "Knowledge network {kn_id} has no action type {action_type_id}.",
    },
})


# -- binding --------------------------------------------------------------------------------

@dataclass(frozen=True)
class ActionParam:
    name: str
    source: str
    value: Any = None
    required: bool = True

    @classmethod
    def parse(cls, action_id: str, name: str, raw: object) -> ActionParam:
        if not isinstance(raw, Mapping):
            return cls(name, "const", raw)
        source = raw.get("value_from", "const")
        if source not in ("property", "const", "input"):
            raise definition_invalid(f"{action_id}.{name}",
                                     f"value_from must be property, const or input, got {source!r}")
        if source == "property" and not isinstance(raw.get("value"), str):
            raise definition_invalid(f"{action_id}.{name}",
                                     "a property binding names the property in value")
        return cls(name, source, raw.get("value"), bool(raw.get("required", True)))


@dataclass(frozen=True)
class PlanRequest:
    kn_id: str
    action_type_id: str
    identities: list[Any]  # empty: describe without targets, or execute on every instance
    inputs: dict[str, Any] | None = None  # None: describe only (get_action_info), inputs unchecked


def plan_action(state: OntologyState, request: PlanRequest) -> dict[str, Any]:
    """The action type, its targets and the tool calls it stands for on those instances.

    Unknown instances are refused (404, all listed), as are missing required inputs
    (``MISSING_INPUT_PARAMS``) and inputs the action type does not declare.
    """
    store = network_store(state, request.kn_id)
    extras = state.schema.get(request.kn_id)
    action = extras.action_types.get(request.action_type_id) if extras else None
    if action is None:
        raise ApiError(ACTION_TYPE_NOT_FOUND, 404,
                       params={"kn_id": request.kn_id, "action_type_id": request.action_type_id},
                       details={"kn_id": request.kn_id, "action_type_id": request.action_type_id})
    object_type = object_type_of(store, action.object_type_id)
    params = [ActionParam.parse(action.id, name, raw) for name, raw in action.parameters.items()]
    inputs = _checked_inputs(action, params, request.inputs)
    raw_identities = request.identities
    if not raw_identities and request.inputs is not None:
        raw_identities = _every_instance(store, object_type)
    identities = [
        canonical_identity(object_type, raw, i) for i, raw in enumerate(raw_identities)
    ]
    for index, identity in enumerate(identities):
        if identity in identities[:index]:
            raise invalid_identity(index, "the instance is listed twice; an action acts once "
                                          "per instance")
    instances = [find_instance(store, object_type, identity) for identity in identities]
    absent = [identity for identity, obj in zip(identities, instances, strict=True) if obj is None]
    if absent:
        raise ApiError(LogicCode.INSTANCE_NOT_FOUND, 404,
                       params={"ot_id": object_type.id, "identities": identity_text(absent)},
                       details={"ot_id": object_type.id, "missing": absent})
    rows = [dict(obj.properties) for obj in instances if obj is not None]
    if action.mode == "per_instance":
        calls = [{"targets": [i], "arguments": _arguments(params, [row], inputs, per_instance=True)}
                 for i, row in enumerate(rows)]
    else:
        calls = [{"targets": list(range(len(rows))),
                  "arguments": _arguments(params, rows, inputs, per_instance=False)}]
    return {
        "action_type": {
            "id": action.id, "name": action.name, "description": action.description,
            "object_type_id": action.object_type_id, "toolbox_id": action.toolbox_id,
            "tool_id": action.tool_id, "mode": action.mode,
        },
        "targets": [{"ot_id": object_type.id, "identity": identity} for identity in identities],
        "input_parameters": [
            {"name": p.name, "required": p.required} for p in params if p.source == "input"
        ],
        "calls": calls,
    }


def _every_instance(store: OntologyStore, object_type: ObjectType) -> list[dict[str, Any]]:
    """An execution without targets acts on every instance of the action's object type (no
    action type declares a narrower condition here), refused past MAX_SCANNED_TARGETS."""
    objects = store.objects(object_type.id)
    if len(objects) > MAX_SCANNED_TARGETS:
        raise invalid_identity(0, f"no target instances given and {object_type.id} has "
                                  f"{len(objects)} instances (at most {MAX_SCANNED_TARGETS} "
                                  "are scanned); pass _instance_identities",
                               instance_count=len(objects))
    return [objects[i].identity(object_type) for i in store.sorted_ids(object_type.id)]


def _checked_inputs(
    action: ev.ActionTypeUpserted, params: Sequence[ActionParam], given: Mapping[str, Any] | None
) -> dict[str, Any]:
    if given is None:
        return {}
    declared = {p.name: p for p in params if p.source == "input"}
    extra = sorted(set(given) - set(declared))
    if extra:
        raise invalid_params(
            f"action {action.id} takes no parameter {', '.join(extra)} "
            f"(accepted: {', '.join(declared) or '-'})",
            action_type_id=action.id, unexpected=extra, accepted=list(declared))
    absent = [name for name, p in declared.items() if p.required and given.get(name) is None]
    if absent:
        raise missing_params_error([("action_type_id", action.id, absent)])
    return {k: v for k, v in given.items() if v is not None}


def _arguments(
    params: Sequence[ActionParam], rows: Sequence[Mapping[str, Any]], inputs: Mapping[str, Any],
    *, per_instance: bool,
) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for p in params:
        if p.source == "const":
            arguments[p.name] = p.value
        elif p.source == "input":
            if p.name in inputs:
                arguments[p.name] = inputs[p.name]
        elif per_instance:
            value = rows[0].get(p.value)
            if value is not None:
                arguments[p.name] = value
        else:
            arguments[p.name] = [row.get(p.value) for row in rows]
    return arguments
