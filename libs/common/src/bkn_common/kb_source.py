"""The knowledge-base source format (seed 002), shared by ``clctl kb apply`` and the service.

A base is a folder: ``index.md``, ``pages/**.md`` (Markdown with a YAML frontmatter block:
``title``, ``description``, ``tags``; optional ``related`` / ``references`` / ``see_also``
(paths of other files), ``aliases``, ``status``, ``superseded_by``), other folders allowed.
``_index/`` and ``_graph/`` are reserved for the files the service derives.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import yaml

RESERVED_ROOTS = ("_index/", "_graph/")
RELATION_KEYS = ("related", "references", "see_also")
LIST_KEYS = ("tags", "aliases", *RELATION_KEYS)
STRING_KEYS = ("title", "description", "status", "superseded_by")
STATUSES = ("current", "draft", "superseded", "deprecated")
_FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"(?<!!)\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class SourceDocument:
    """One parsed source file: frontmatter, body and the problems found in them."""

    path: str
    frontmatter: dict[str, Any]
    body: str
    links: tuple[str, ...] = ()
    """Targets of relative Markdown links, resolved to base-relative paths (or ``..`` paths)."""
    problems: tuple[str, ...] = field(default=())


def normalize_path(path: str) -> str:
    """NFC, forward slashes, no leading ``./`` or ``/``."""
    text = unicodedata.normalize("NFC", path.replace("\\", "/"))
    return posixpath.normpath(text).lstrip("/") if text else text


def is_page(path: str) -> bool:
    return path.startswith("pages/") and path.endswith(".md")


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """``(frontmatter, body, error)``; a file without a ``---`` block has empty frontmatter."""
    if not text.startswith("---"):
        return {}, text, None
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, None
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            raw, body = "\n".join(lines[1:end]), "\n".join(lines[end + 1:])
            try:
                data = yaml.load(raw, Loader=_LOADER) if raw.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (line {mark.line + 2})" if mark is not None else ""
                return {}, body, f"frontmatter is not valid YAML{where}"
            if not isinstance(data, dict):
                return {}, body, "frontmatter must be a YAML mapping"
            return data, body, None
    return {}, text, "frontmatter block is not closed with ---"


def resolve_link(from_path: str, target: str) -> str | None:
    """The base-relative path a relative link points at; ``None`` for external or anchor links.

    A result starting with ``..`` points outside the base.
    """
    target = target.strip()
    if not target or target.startswith("#") or _SCHEME.match(target) or target.startswith("//"):
        return None
    target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return None
    base = "" if target.startswith("/") else posixpath.dirname(from_path)
    joined = posixpath.join(base, target.lstrip("/"))
    return unicodedata.normalize("NFC", posixpath.normpath(joined))


def markdown_links(path: str, body: str) -> tuple[str, ...]:
    """Resolved targets of the body's relative links (code blocks skipped), in order, once each."""
    text = _FENCE.sub("", body)
    found = (resolve_link(path, m.group(2)) for m in _LINK.finditer(text))
    return tuple(dict.fromkeys(t for t in found if t is not None))


def relation_targets(path: str, frontmatter: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Frontmatter relation key -> resolved targets. Values are base-relative paths
    (``pages/hr/leave.md``), or relative to the file when they start with ``./`` or ``../``."""
    out: dict[str, tuple[str, ...]] = {}
    for key in RELATION_KEYS:
        values = frontmatter.get(key)
        if not isinstance(values, list):
            continue
        targets = []
        for value in values:
            if not isinstance(value, str) or not value.strip():
                continue
            relative = value.startswith(("./", "../"))
            resolved = resolve_link(path, value) if relative else normalize_path(value)
            if resolved is not None:
                targets.append(resolved)
        out[key] = tuple(dict.fromkeys(targets))
    return out


def _frontmatter_problems(path: str, data: dict[str, Any]) -> list[str]:
    problems = []
    if is_page(path):
        for key in ("title", "description"):
            value = data.get(key)
            if not isinstance(value, str) or not value.strip():
                problems.append(f"{path}: frontmatter {key} is required (a non-empty string)")
        if not isinstance(data.get("tags"), list):
            problems.append(f"{path}: frontmatter tags is required (a list of strings)")
    for key in STRING_KEYS:
        if key in data and data[key] is not None and not isinstance(data[key], str):
            problems.append(f"{path}: frontmatter {key} must be a string")
    for key in LIST_KEYS:
        value = data.get(key)
        if value is not None and (not isinstance(value, list)
                                  or not all(isinstance(v, str) and v.strip() for v in value)):
            problems.append(f"{path}: frontmatter {key} must be a list of non-empty strings")
    status = data.get("status")
    if isinstance(status, str) and status not in STATUSES:
        problems.append(f"{path}: frontmatter status {status!r} is not one of {', '.join(STATUSES)}")
    return problems


def parse_source(path: str, text: str) -> SourceDocument:
    """Parse one file and list what is wrong with its frontmatter (links are checked per base)."""
    frontmatter, body, error = split_frontmatter(text)
    problems = [f"{path}: {error}"] if error else []
    if error is None:
        problems += _frontmatter_problems(path, frontmatter)
    return SourceDocument(path, frontmatter, body, markdown_links(path, body), tuple(problems))


def base_problems(documents: dict[str, SourceDocument]) -> list[str]:
    """Links and frontmatter relations of every file: inside the base and to a file it has."""
    problems = []
    for path, doc in sorted(documents.items()):
        targets = [("link", t) for t in doc.links]
        for key, values in relation_targets(path, doc.frontmatter).items():
            targets += [(f"frontmatter {key}", t) for t in values]
        superseded_by = doc.frontmatter.get("superseded_by")
        if isinstance(superseded_by, str):
            targets.append(("frontmatter superseded_by", normalize_path(superseded_by)))
        for kind, target in targets:
            if target == ".." or target.startswith("../"):
                problems.append(f"{path}: {kind} {target!r} points outside the knowledge base")
            elif target not in documents and not _is_directory(target, documents):
                problems.append(f"{path}: {kind} {target!r} names no file of the knowledge base")
    return problems


def _is_directory(target: str, documents: dict[str, SourceDocument]) -> bool:
    prefix = target.rstrip("/") + "/"
    return any(p.startswith(prefix) for p in documents)
