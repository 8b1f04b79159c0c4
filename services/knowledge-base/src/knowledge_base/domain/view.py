"""The readable view of one knowledge base at one revision: files, directories, relations.

Built from the manifest of the latest apply and the contents received so far; a manifest
path whose exact content has not arrived yet is listed with ``generatedOutputStatus``
``unavailable`` and no content.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field
from typing import Any

from bkn_common.kb_source import is_page, parse_source
from knowledge_base.domain.files import KbFile, graph_path, source_file_id
from knowledge_base.domain.navigation import navigation_files
from knowledge_base.domain.relations import Relation, compute_relations


@dataclass
class BaseView:
    kb_id: str
    name: str
    revision: int
    readers: frozenset[str]
    files: dict[str, KbFile] = field(default_factory=dict)
    """Every readable path: source files and derived navigation files."""
    by_id: dict[str, KbFile] = field(default_factory=dict)
    directories: set[str] = field(default_factory=set)
    relations: dict[str, list[Relation]] = field(default_factory=dict)

    def sources(self) -> list[KbFile]:
        """Source files that are answer evidence or documents (never navigation), by path."""
        return [f for p, f in sorted(self.files.items()) if f.source and not f.navigation]

    def children(self, parent: str) -> list[tuple[str, KbFile | None]]:
        """Immediate children of ``parent``: (path, file) for files, (path, None) for directories."""
        entries: dict[str, KbFile | None] = {}
        for directory in self.directories:
            if directory and posixpath.dirname(directory) == parent:
                entries[directory] = None
        for path, file in self.files.items():
            if posixpath.dirname(path) == parent:
                entries[path] = file
        return sorted(entries.items(), key=lambda kv: (kv[1] is not None, kv[0]))


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _kind(path: str) -> str:
    if posixpath.basename(path) == "index.md":
        return "index"
    return "page" if is_page(path) else "document"


def _first_heading(body: str) -> str | None:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def source_file(kb_id: str, path: str, content: str | None, sha: str) -> tuple[KbFile, tuple[str, ...]]:
    """A source file (and its resolved link targets); ``content`` None = not yet processed."""
    file_id = source_file_id(kb_id, path)
    if content is None:
        stem = posixpath.splitext(posixpath.basename(path))[0]
        return KbFile(kb_id, file_id, path, _kind(path), stem, "", "", sha,  # type: ignore[arg-type]
                      available=False), ()
    doc = parse_source(path, content)
    fm = doc.frontmatter
    title = fm.get("title") if isinstance(fm.get("title"), str) else None
    title = title or _first_heading(doc.body) or posixpath.splitext(posixpath.basename(path))[0]
    description = fm.get("description") if isinstance(fm.get("description"), str) else ""
    file = KbFile(
        kb_id, file_id, path, _kind(path), title, description or "", content, sha,  # type: ignore[arg-type]
        frontmatter=fm, body=doc.body, tags=_strings(fm.get("tags")), aliases=_strings(fm.get("aliases")),
    )
    return file, doc.links


ParsedCache = dict[tuple[str, str], tuple[KbFile, tuple[str, ...]]]


def build_view(
    kb_id: str, name: str, revision: int, readers: frozenset[str],
    manifest: dict[str, str], contents: dict[str, str | None], parsed: ParsedCache | None = None,
) -> BaseView:
    """The view; ``parsed`` caches parsed source files by (path, sha256) across revisions."""
    view = BaseView(kb_id, name, revision, readers)
    links: dict[str, tuple[str, ...]] = {}
    cache: ParsedCache = {} if parsed is None else parsed
    for path, sha in sorted(manifest.items()):
        content = contents.get(path)
        hit = cache.get((path, sha)) if content is not None else None
        if hit is None:
            hit = source_file(kb_id, path, content, sha)
            if content is not None:
                cache[(path, sha)] = hit
        view.files[path], links[path] = hit
    evidence = {p: f for p, f in view.files.items() if f.available and not f.navigation}
    view.relations = compute_relations(evidence, links)
    for path in list(view.files):
        parent = posixpath.dirname(path)
        while parent:
            view.directories.add(parent)
            parent = posixpath.dirname(parent)
    for file in navigation_files(view, graph_path):
        view.files[file.path] = file
        parent = posixpath.dirname(file.path)
        while parent:
            view.directories.add(parent)
            parent = posixpath.dirname(parent)
    view.by_id = {f.file_id: f for f in view.files.values()}
    return view


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
