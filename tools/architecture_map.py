"""Checks the "Where to look" tables of docs/architecture.md against the code.

A "Where to look" table is any Markdown table whose header is ``| behaviour | module | function |``.
Each row names one module as a repo-relative path in backticks and, in the third cell, one or
more names defined in it, in backticks: a top-level function, class or constant, or a dotted
path into one (``Class.method``, ``router.execute`` for a function nested in ``router``).
Names are looked up in the module's syntax tree; nothing is imported.

Three checks, each naming what is wrong so it can be fixed in the doc or the code:
- every named module exists and defines every named function or class;
- every tool the gateway exposes (REST and MCP, read from its registry) is named, in backticks,
  in the behaviour cell of a row of the gateway's section;
- every event type on the topics a service consumes (bkn_common.contracts.topics.CONSUMER_TOPICS) is named
  in the behaviour cell of a row of that service's section.

    .venv/bin/python tools/architecture_map.py   # prints the problems; exit 1 when there are any

tests/unit/common/test_architecture_map.py runs the same checks.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
HEADER = ("behaviour", "module", "function")
_TICKED = re.compile(r"`([^`]+)`")
_PIPE = re.compile(r"(?<!\\)\|")
_SERVICE = re.compile(r"[A-Za-z0-9_-]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class Row:
    """One row of a "Where to look" table."""

    line: int
    section: str
    """The ``## `` heading the table sits under."""
    behaviour: str
    module: str
    names: tuple[str, ...]

    def mentions(self, word: str) -> bool:
        return word in _TICKED.findall(self.behaviour)


def _cells(line: str) -> list[str]:
    """A table row's cells; an escaped pipe (``\\|``) stays inside its cell."""
    return [cell.strip().replace("\\|", "|") for cell in _PIPE.split(line.strip().strip("|"))]


def where_to_look_rows(text: str) -> list[Row]:
    """Every row of every "Where to look" table in ``text`` (Markdown)."""
    rows: list[Row] = []
    section = ""
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("## "):
            section = line[3:].strip()
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if tuple(c.lower() for c in cells) == HEADER:
            in_table = True
            continue
        if not in_table or set(line) <= set("|-: "):
            continue
        behaviour, module, function = ([*cells, "", ""])[:3]
        modules = _TICKED.findall(module)
        rows.append(Row(
            line=number, section=section, behaviour=behaviour,
            module=modules[0] if len(modules) == 1 else module,
            names=tuple(name.strip() for ticked in _TICKED.findall(function)
                        for name in ticked.split(",") if name.strip()),
        ))
    return rows


def _defined(body: Iterable[ast.stmt]) -> dict[str, ast.AST]:
    """Names a module or class body (or a function, for nested functions) defines."""
    found: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            found.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _has(tree: ast.Module, dotted: str) -> bool:
    scope: ast.AST = tree
    for part in dotted.split("."):
        body = getattr(scope, "body", None)
        if not isinstance(body, list):
            return False
        node = _defined(body).get(part)
        if node is None:
            return False
        scope = node
    return True


def row_problems(rows: Iterable[Row], root: Path = ROOT) -> list[str]:
    """A row whose module is missing, or names something its module does not define."""
    problems = []
    for row in rows:
        where = f"docs/architecture.md:{row.line} ({row.behaviour[:60]})"
        if not row.module.endswith(".py") or "`" in row.module or " " in row.module:
            problems.append(f"{where}: the module cell must be one repo-relative .py path in backticks, "
                            f"not {row.module!r}")
            continue
        path = root / row.module
        if not path.is_file():
            problems.append(f"{where}: module {row.module} does not exist")
            continue
        if not row.names:
            problems.append(f"{where}: no function or class named for {row.module}")
        for name in row.names:
            if not _NAME.fullmatch(name):
                problems.append(f"{where}: {name!r} is not a function or class name")
            elif not _has(_tree(path), name):
                problems.append(f"{where}: {row.module} defines no {name}")
    return problems


def section_service(section: str) -> str:
    """The service a ``## `` heading is about: its first word (``## tool-executor: ...``)."""
    match = _SERVICE.match(section)
    return match.group(0) if match else ""


def _in_section(rows: Iterable[Row], service: str) -> list[Row]:
    return [row for row in rows if section_service(row.section) == service]


def unmapped_tools(rows: Iterable[Row], tools: Iterable[str]) -> list[str]:
    """Gateway tools no row of the gateway's section names in its behaviour cell."""
    gateway = _in_section(rows, "gateway")
    return sorted(t for t in tools if not any(row.mentions(t) for row in gateway))


def unmapped_events(rows: Iterable[Row], consumed: Mapping[str, Iterable[str]]) -> list[str]:
    """``service: event type`` for each consumed event type its section does not name."""
    rows = list(rows)
    missing = []
    for service, types in consumed.items():
        section = _in_section(rows, service)
        missing += [f"{service}: {t}" for t in sorted(types) if not any(row.mentions(t) for row in section)]
    return missing


def gateway_tools() -> list[str]:
    """Every tool the gateway can expose: its registry with every switch on, and /mcp-compact's own."""
    from gateway.entrypoints.mcp_catalog import GATEWAY_TOOLS
    from gateway.service_layer.catalog import build_registry
    from gateway.settings import GatewaySettings

    registry = build_registry(GatewaySettings(execute_skill_enabled=True))
    return [t.name for t in registry.all()] + list(GATEWAY_TOOLS)


def consumed_events() -> dict[str, set[str]]:
    """Per consumer, the event types on every topic it reads (folded or in a consumer group)."""
    from bkn_common.contracts.topics import CONSUMER_TOPICS

    return {
        consumer: {event.type for spec in (*topics.projection, *topics.group) for event in spec.events}
        for consumer, topics in CONSUMER_TOPICS.items()
    }


def problems(text: str, root: Path = ROOT) -> list[str]:
    rows = where_to_look_rows(text)
    found = row_problems(rows, root)
    found += [f"gateway tool {t} is in no gateway row of a Where to look table"
              for t in unmapped_tools(rows, gateway_tools())]
    found += [f"consumed event {e} is in no row of that service's Where to look table"
              for e in unmapped_events(rows, consumed_events())]
    return found


def main() -> int:
    found = problems(DOC.read_text(encoding="utf-8"))
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
