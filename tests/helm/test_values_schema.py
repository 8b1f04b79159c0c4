"""values.yaml and the hand-written values.schema.json describe the same keys.

Helm refuses a values.yaml key the schema does not know (every object is
``additionalProperties: false``), but nothing else keeps the two in step: a key documented in
the schema with no default in values.yaml, or one component's copy of a shared pod setting
drifting from ``defaults``, would pass `helm lint`. Offline: no helm needed.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from tests.helm.chart import CHART

VALUES = yaml.safe_load((CHART / "values.yaml").read_text())
SCHEMA = json.loads((CHART / "values.schema.json").read_text())
COMPONENTS = ("gateway", "capabilityIndex", "toolExecutor", "traceRecorder", "ontologyQuery",
              "knowledgeBase")
# schema keys with no default in values.yaml, on purpose
NO_DEFAULT = {
    "global",  # Helm's own, passed to subcharts
    "defaults.containerSecurityContext",  # merged over the chart-wide containerSecurityContext
    *(f"{component}.pdb.minAvailable" for component in COMPONENTS),  # set instead of maxUnavailable
}


def _walk(values: Any, schema: dict[str, Any], path: str) -> tuple[list[str], list[str]]:
    """(values keys the schema lacks, schema keys values.yaml lacks) below ``path``."""
    props = schema.get("properties")
    if not isinstance(values, dict) or props is None:
        return [], []
    unknown = [f"{path}{key}" for key in values if key not in props]
    undefaulted = [f"{path}{key}" for key in props if key not in values]
    for key, sub in values.items():
        if key in props:
            more_unknown, more_undefaulted = _walk(sub, props[key], f"{path}{key}.")
            unknown += more_unknown
            undefaulted += more_undefaulted
    return unknown, undefaulted


def _component_override(path: str) -> bool:
    """``<component>.<key>`` where ``key`` is a ``defaults`` setting the component may override."""
    component, _, key = path.partition(".")
    return component in COMPONENTS and key.split(".")[0] in SCHEMA["properties"]["defaults"]["properties"]


def test_every_values_key_is_in_the_schema_and_every_schema_key_has_a_default() -> None:
    unknown, undefaulted = _walk(VALUES, SCHEMA, "")
    assert not unknown, f"values.yaml keys missing from values.schema.json: {unknown}"
    missing = [p for p in undefaulted if p not in NO_DEFAULT and not _component_override(p)]
    assert not missing, f"values.schema.json keys with no default in values.yaml: {missing}"


def test_every_component_overrides_the_defaults_with_the_same_schema() -> None:
    defaults = SCHEMA["properties"]["defaults"]["properties"]
    drifted = [
        f"{component}.{key}"
        for component in COMPONENTS
        for key, schema in defaults.items()
        if SCHEMA["properties"][component]["properties"].get(key) != schema
    ]
    assert not drifted, f"component settings whose schema differs from defaults': {drifted}"


def test_every_object_in_the_schema_is_closed() -> None:
    """An object with named properties refuses others (a typo in a key is an error, not ignored)."""
    open_objects: list[str] = []

    def visit(schema: dict[str, Any], path: str) -> None:
        props = schema.get("properties")
        if props is None:
            return
        if schema.get("additionalProperties") is not False:
            open_objects.append(path or "<root>")
        for key, sub in props.items():
            visit(sub, f"{path}{key}.")

    visit(SCHEMA, "")
    assert not open_objects, f"objects that accept unknown keys: {open_objects}"
