"""ontology-query's modules import each other one way: no cycle, no import inside a function,
and the layers point inward (``domain`` ← ``service_layer`` ← ``entrypoints`` / ``adapters``).

Read from the source with ``ast``; an import under ``if TYPE_CHECKING:`` counts too (a cycle
that only annotations close is still a cycle).
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import ontology_query

PACKAGE = "ontology_query"
ROOT = Path(ontology_query.__file__).parent
INWARD = {"domain": set(), "service_layer": {"domain"}, "adapters": {"domain", "service_layer"},
          "entrypoints": {"domain", "service_layer"}}  # fmt: skip


def _modules() -> dict[str, ast.Module]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join((PACKAGE, *parts[: -1 if parts[-1] == "__init__" else None]))
        found[name] = ast.parse(path.read_text(encoding="utf-8"))
    return found


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _module_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """The package's modules ``tree`` imports outside functions."""
    out: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If):
            pending.extend(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            pending.extend(node.body + node.orelse + node.finalbody)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(name for name in _imported(node) if name in known)
    return out


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in INWARD else None


def test_no_import_cycle() -> None:
    modules = _modules()
    graph = {name: _module_imports(tree, set(modules)) - {name} for name, tree in modules.items()}
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:  # pragma: no cover - the message is the finding
        raise AssertionError(f"import cycle: {' → '.join(exc.args[1])}") from exc


def test_no_deferred_import_of_the_package() -> None:
    deferred = []
    for name, tree in _modules().items():
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                        n.startswith(PACKAGE) for n in _imported(node)):
                    deferred.append(f"{name}:{node.lineno}")
    assert deferred == []


def test_layers_point_inward() -> None:
    modules = _modules()
    wrong = []
    for name, tree in modules.items():
        layer = _layer(name)
        if layer is None:
            continue
        for target in _module_imports(tree, set(modules)):
            other = _layer(target)
            if other is not None and other != layer and other not in INWARD[layer]:
                wrong.append(f"{name} → {target}")
    assert wrong == []
