"""The tree's naming conventions (docs/architecture.md, "Conventions"), checked on the source:
where in-memory adapters live, and one spelling of catalog in module names and identifiers
(strings, comments and prose keep theirs: wire names never change)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CODE_FOLDERS = ("libs", "services", "examples", "tests", "bench", "scripts", "tools")


def _python_files() -> list[Path]:
    files = []
    for folder in CODE_FOLDERS:
        files.extend(p for p in (ROOT / folder).rglob("*.py")
                     if ".venv" not in p.parts and not any(part.endswith(".egg-info") for part in p.parts))
    return sorted(files)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_an_in_memory_adapter_of_port_x_is_memory_x_in_adapters_memory_x() -> None:
    found = 0
    misplaced = []
    for path in sorted(ROOT.glob("services/*/src/*/adapters/*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Memory"):
                found += 1
                expected = f"memory_{_snake(node.name.removeprefix('Memory'))}.py"
                if path.name != expected:
                    misplaced.append(f"{path.relative_to(ROOT)}: {node.name} belongs in adapters/{expected}")
    assert found >= 9, "the in-memory adapters were not found: is the tree where the test looks?"
    assert misplaced == []


def _identifiers(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str | None] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module]
        found.extend((getattr(node, "lineno", 0), n) for n in names if n)
    return found


def test_catalog_has_one_spelling_in_module_names_and_identifiers() -> None:
    files = _python_files()
    assert len(files) > 100
    offending = [str(p.relative_to(ROOT)) for p in files if "catalogue" in p.name]
    for path in files:
        offending.extend(f"{path.relative_to(ROOT)}:{line} {name}"
                         for line, name in _identifiers(ast.parse(path.read_text()))
                         if "catalogue" in name.lower())
    assert offending == []
