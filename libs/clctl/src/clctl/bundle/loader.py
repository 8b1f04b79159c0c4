"""Load a bundle (file or folder), validate every document and every cross-reference.

Problems are collected, not raised one by one: a bundle with any problem is refused as a
whole, and each problem names the file, the path inside the document and the field.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from clctl.bundle.models import (
    DOCUMENT_KINDS,
    BindingsDoc,
    DataResourcesDoc,
    InstancesDoc,
    LifecycleDoc,
    McpServerDoc,
    NetworkDoc,
    SchemaDoc,
    SkillDoc,
    ToolboxDoc,
)
from clctl.bundle.parsed import Bundle, BundleError, Document, Problem
from clctl.bundle.references import ReferenceChecker

_ENV_PATTERN = re.compile(r"\$\{([A-Z0-9_]+)(?::-([^}]*))?\}")
MAX_SKILL_FILE_BYTES = 8 * 1024 * 1024


def _interpolate(value: Any) -> Any:
    """Expand ``${VAR}`` / ``${VAR:-default}`` in strings (endpoints differ per deployment)."""
    if isinstance(value, str):
        return _ENV_PATTERN.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), value)
    if isinstance(value, list):
        return [_interpolate(v) for v in value]
    if isinstance(value, dict):
        return {k: _interpolate(v) for k, v in value.items()}
    return value


def _bundle_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    return sorted(p for p in source.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def load_bundle(source: Path) -> Bundle:
    """Parse and validate ``source``; raise :class:`BundleError` listing every problem."""
    if not source.exists():
        raise BundleError([Problem(str(source), "", "no such file or folder")])
    root = source if source.is_dir() else source.parent
    bundle = Bundle(root=root)
    problems: list[Problem] = []
    for path in _bundle_files(source):
        rel = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        try:
            raw_docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except yaml.YAMLError as exc:
            problems.append(Problem(rel, "", f"not valid YAML: {exc}"))
            continue
        for index, raw in enumerate(d for d in raw_docs if d is not None):
            prefix = f"document[{index}]" if len(raw_docs) > 1 else ""
            if not isinstance(raw, dict) or "kind" not in raw:
                problems.append(Problem(rel, prefix, "field 'kind' is required"))
                continue
            model_cls = DOCUMENT_KINDS.get(str(raw["kind"]))
            if model_cls is None:
                kinds = ", ".join(DOCUMENT_KINDS)
                problems.append(Problem(rel, _join(prefix, "kind"), f"unknown kind (one of {kinds})"))
                continue
            try:
                model = model_cls.model_validate(_interpolate(raw))
            except ValidationError as exc:
                problems.extend(_validation_problems(rel, prefix, exc))
                continue
            bundle.documents.append(Document(path, index, model))
    if not problems:
        problems.extend(_load_skill_files(bundle))
        problems.extend(_load_function_sources(bundle))
        problems.extend(_resolve_data_files(bundle))
        problems.extend(check_references(bundle))
    if problems:
        raise BundleError(problems)
    if not bundle.documents:
        raise BundleError([Problem(str(source), "", "no bundle documents found")])
    return bundle


def _join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def _validation_problems(file: str, prefix: str, exc: ValidationError) -> list[Problem]:
    problems = []
    for err in exc.errors():
        location = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"])
        problems.append(Problem(file, _join(prefix, location.lstrip(".")), err["msg"]))
    return problems


def _is_skill_file(path: Path, folder: Path) -> bool:
    parts = path.relative_to(folder).parts
    hidden = any(p.startswith(".") or p == "__pycache__" for p in parts)
    return path.is_file() and not hidden and path.suffix not in (".pyc", ".pyo")


def _load_skill_files(bundle: Bundle) -> list[Problem]:
    problems = []
    for doc in bundle.documents:
        if not isinstance(doc.model, SkillDoc):
            continue
        rel = str(doc.file.relative_to(bundle.root))
        folder = (doc.file.parent / doc.model.dir).resolve()
        if not folder.is_dir():
            problems.append(Problem(rel, "dir", f"skill folder {doc.model.dir!r} does not exist"))
            continue
        files: dict[str, str] = {}
        for path in sorted(p for p in folder.rglob("*") if _is_skill_file(p, folder)):
            if path.stat().st_size > MAX_SKILL_FILE_BYTES:
                problems.append(Problem(rel, "dir", f"{path.name} is over 8 MiB"))
                continue
            try:
                files[str(path.relative_to(folder))] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                problems.append(Problem(rel, "dir", f"{path.name} is not UTF-8 text"))
        entry_file = doc.model.entry.split()[-1] if doc.model.entry.split() else ""
        if entry_file and entry_file not in files:
            problems.append(Problem(rel, "entry", f"entry file {entry_file!r} is not in the skill folder"))
        bundle.skill_files[doc.model.id] = files
    return problems


def _resolve_data_files(bundle: Bundle) -> list[Problem]:
    """Each data resource's ``file`` made absolute (relative to its document); must exist."""
    problems: list[Problem] = []
    for doc in bundle.documents:
        if not isinstance(doc.model, DataResourcesDoc):
            continue
        rel = str(doc.file.relative_to(bundle.root)) if doc.file.is_relative_to(bundle.root) else str(doc.file)
        for index, resource in enumerate(doc.model.resources):
            path = (doc.file.parent / resource.file).resolve()
            if not path.is_file():
                problems.append(Problem(rel, f"resources[{index}].file", f"{resource.file!r} does not exist"))
            resource.file = str(path)
    return problems


def _load_function_sources(bundle: Bundle) -> list[Problem]:
    problems = []
    for doc in bundle.documents:
        if not isinstance(doc.model, ToolboxDoc):
            continue
        rel = str(doc.file.relative_to(bundle.root))
        for i, tool in enumerate(doc.model.tools):
            fn = tool.function
            if fn is None:
                continue
            where = f"tools[{i}].function"
            if fn.source and fn.source_file:
                problems.append(Problem(rel, where, "give source or source_file, not both"))
            elif fn.source_file:
                path = doc.file.parent / fn.source_file
                try:
                    bundle.function_sources[(doc.model.id, tool.id)] = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    problems.append(Problem(rel, f"{where}.source_file", f"cannot read {fn.source_file!r}: {exc}"))
            elif fn.source:
                bundle.function_sources[(doc.model.id, tool.id)] = fn.source
    return problems


def check_references(bundle: Bundle) -> list[Problem]:
    """Cross-document checks: every id a document mentions must be declared in the bundle."""
    return ReferenceChecker(bundle).run()


__all__ = [
    "BindingsDoc", "Bundle", "BundleError", "Document", "InstancesDoc", "LifecycleDoc",
    "McpServerDoc", "NetworkDoc", "Problem", "SchemaDoc", "SkillDoc", "ToolboxDoc", "load_bundle",
]
