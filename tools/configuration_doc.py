"""Writes docs/configuration.md: every environment variable the settings classes read, with its
type, default and meaning, generated from the classes themselves (names from pydantic's aliases
and prefixes, meanings from each field's docstring or the comment above it).

    .venv/bin/python tools/configuration_doc.py > docs/configuration.md

tests/unit/common/test_configuration_doc.py fails when the file is not what this prints.
"""

from __future__ import annotations

import ast
import inspect
import io
import sys
from collections.abc import Iterator
from functools import cache
from typing import Any

from knowledge_base.settings import KnowledgeBaseSettings
from pydantic import AliasChoices
from pydantic.fields import FieldInfo

from bkn_common.infra.settings import ServiceSettings
from capability_index.settings import CapabilityIndexSettings
from clctl.settings import ClctlSettings
from gateway.settings import GatewaySettings
from ontology_query.settings import OntologyQuerySettings
from tool_executor.settings import ToolExecutorSettings
from trace_recorder.settings import TraceRecorderSettings

SERVICES: list[tuple[str, type[ServiceSettings]]] = [
    ("gateway", GatewaySettings), ("capability-index", CapabilityIndexSettings),
    ("tool-executor", ToolExecutorSettings), ("trace-recorder", TraceRecorderSettings),
    ("ontology-query", OntologyQuerySettings), ("knowledge-base", KnowledgeBaseSettings),
    ("clctl", ClctlSettings),
]
SECRET_DEFAULT = "(none)"


@cache
def _field_notes(cls: type) -> dict[str, str]:
    """field name -> its docstring, else the comment lines right above it, else its inline comment."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    body = ast.parse(inspect.cleandoc("\n" + source) if source.startswith(" ") else source).body[0]
    assert isinstance(body, ast.ClassDef)
    notes: dict[str, str] = {}
    for index, node in enumerate(body.body):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        following = body.body[index + 1] if index + 1 < len(body.body) else None
        if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant) \
                and isinstance(following.value.value, str):
            notes[node.target.id] = " ".join(following.value.value.split())
            continue
        above, row = [], node.lineno - 2
        while row >= 0 and lines[row].strip().startswith("#"):
            above.insert(0, lines[row].strip().lstrip("#").strip())
            row -= 1
        inline = lines[node.end_lineno - 1].partition("  #")[2].strip() if node.end_lineno else ""
        notes[node.target.id] = " ".join(above) or inline
    return notes


def _note(cls: type, name: str) -> str:
    """The field's meaning where it is declared: a subclass that only changes a default (a
    service's ``port``) keeps the meaning its base gave."""
    for klass in cls.__mro__:
        if note := _field_notes(klass).get(name, "") if name in vars(klass).get("__annotations__", {}) else "":
            return note
    return ""


def env_name(cls: type[ServiceSettings], name: str, field: FieldInfo) -> str:
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0]).upper()
    if isinstance(alias, str):
        return alias.upper()
    return f"{cls.model_config.get('env_prefix', '')}{name}".upper()


def _type(field: FieldInfo) -> str:
    text = str(field.annotation).replace("typing.", "").replace("pydantic.types.", "")
    return text.removeprefix("<class '").removesuffix("'>").replace("pathlib.", "")


def _default(field: FieldInfo) -> str:
    value: Any = field.get_default(call_default_factory=True)
    if value is None or "Secret" in _type(field):
        return SECRET_DEFAULT if value is None else "(set)"
    return f"`{value}`" if str(value) != "" else '`""`'


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text[:1].upper() + text[1:]


def rows(cls: type[ServiceSettings], shared: bool) -> Iterator[str]:
    """One table row per field: the unprefixed names every service shares, or this class's own."""
    for name, field in cls.model_fields.items():
        is_shared = isinstance(field.validation_alias, (AliasChoices, str))
        if is_shared != shared:
            continue
        yield (f"| `{env_name(cls, name, field)}` | {_cell(_type(field))} | {_cell(_default(field))} "
               f"| {_cell(_note(cls, name))} |")


def render() -> str:
    out = io.StringIO()
    out.write("# Configuration\n\n"
              "Every environment variable the mesh's processes read, generated from their settings\n"
              "classes by `tools/configuration_doc.py` (do not edit by hand). Names with a service\n"
              "prefix are that service's; the shared names below apply to every service and clctl.\n"
              "The Helm chart sets them from its values (deploy/helm/context-loader/values.yaml).\n\n")
    header = "| name | type | default | meaning |\n|---|---|---|---|\n"
    out.write("## Shared by every service\n\n" + header)
    out.write("\n".join(rows(ServiceSettings, shared=True)) + "\n")
    for service, cls in SERVICES:
        out.write(f"\n## {service}\n\n`{cls.__module__}.{cls.__name__}`\n\n" + header)
        out.write("\n".join(rows(cls, shared=False)) + "\n")
    return out.getvalue()


if __name__ == "__main__":
    sys.stdout.write(render())
