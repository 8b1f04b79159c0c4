"""Operator logic properties: a tool bound to an object type's property.

ontology-query only plans an operator's calls; the tools run in tool-executor, which the
gateway calls. A call's arguments are the definition's ``constant_arguments``, then its
``property_arguments`` (``{tool argument: property}``, read from the instance), then the
caller's parameters; an argument taken from a property the caller sees only masked or by
name is left out::

    toolbox: box_finance
    tool: tool_fx_convert
    property_arguments: {amount: amount, from: currency}
    constant_arguments: {to: CNY}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bkn_common.contracts import events as ev
from ontology_query.domain.model import ObjectInstance
from ontology_query.service_layer.refusals import definition_invalid
from ontology_query.service_layer.type_policy import PropertyRule


def operator_of(prop: ev.LogicProperty, ot_id: str) -> tuple[str, str, dict[str, Any]]:
    """(toolbox id, tool id, argument spec) of an operator property (422 when malformed)."""
    d = prop.definition
    if not isinstance(d.get("toolbox"), str) or not isinstance(d.get("tool"), str):
        raise definition_invalid(f"{ot_id}.{prop.name}", "an operator needs toolbox and tool")
    return d["toolbox"], d["tool"], {
        "constant": dict(d.get("constant_arguments") or {}),
        "property": dict(d.get("property_arguments") or {}),
    }


def operator_arguments(
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
