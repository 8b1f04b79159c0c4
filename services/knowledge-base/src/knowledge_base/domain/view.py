"""The readable view of one knowledge base at one revision: files, directories, relations.

Built from the manifest of the latest apply and the contents received so far; a manifest
path whose exact content has not arrived yet is listed with ``generatedOutputStatus``
``unavailable`` and no content.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass, field

from bkn_common.domain.kb_links import LinkRef, LinkResolver, is_navigation_name
from bkn_common.domain.kb_source import derive_metadata, is_page, parse_source
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


def _kind(path: str) -> str:
    if is_navigation_name(path):
        return "index"
    return "page" if is_page(path) else "document"


def source_file(kb_id: str, path: str, content: str | None, sha: str) -> tuple[KbFile, tuple[LinkRef, ...]]:
    """A source file (and its links, resolved per base); ``content`` None = not yet processed."""
    file_id = source_file_id(kb_id, path)
    if content is None:
        stem = posixpath.splitext(posixpath.basename(path))[0]
        return KbFile(kb_id, file_id, path, _kind(path), stem, "", "", sha,  # type: ignore[arg-type]
                      available=False), ()
    doc = parse_source(path, content)
    meta = derive_metadata(path, doc.frontmatter, doc.body)
    body: str | int = doc.body
    if doc.body is not content and doc.body and content.endswith(doc.body):
        body = len(content) - len(doc.body)  # the tail of the content: not a second copy
    file = KbFile(
        kb_id, file_id, path, _kind(path), meta.title, meta.description, content, sha,  # type: ignore[arg-type]
        frontmatter=doc.frontmatter, stored_body=body, tags=meta.tags, aliases=meta.aliases, derived=meta.derived,
    )
    return file, doc.refs


ParsedCache = dict[tuple[str, str], tuple[KbFile, tuple[LinkRef, ...]]]


def resolved_links(files: dict[str, KbFile], refs: dict[str, tuple[LinkRef, ...]],
                   link_root: str = "") -> dict[str, tuple[tuple[str, str], ...]]:
    """Per path, the (target path, key) of each link that names a Markdown file of the base."""
    names = {p: (f.title, *f.aliases) for p, f in files.items() if f.available}
    resolver = LinkResolver(files, names, link_root=link_root)
    out = {}
    for path, links in refs.items():
        found = []
        for ref in links:
            if ref.key == "image":
                continue
            target = resolver.resolve(path, ref)
            if target.outcome == "file" and target.path is not None:
                found.append((target.path, ref.key))
        out[path] = tuple(found)
    return out


def build_view(
    kb_id: str, name: str, revision: int, readers: frozenset[str],
    manifest: dict[str, str], contents: dict[str, str | None], parsed: ParsedCache | None = None,
    link_root: str = "",
) -> BaseView:
    """The view; ``parsed`` caches parsed source files by (path, sha256) across revisions."""
    view = BaseView(kb_id, name, revision, readers)
    refs: dict[str, tuple[LinkRef, ...]] = {}
    cache: ParsedCache = {} if parsed is None else parsed
    for path, sha in sorted(manifest.items()):
        content = contents.get(path)
        hit = cache.get((path, sha)) if content is not None else None
        if hit is None:
            hit = source_file(kb_id, path, content, sha)
            if content is not None:
                cache[(path, sha)] = hit
        view.files[path], refs[path] = hit
    evidence = {p: f for p, f in view.files.items() if f.available and not f.navigation}
    view.relations = compute_relations(evidence, resolved_links(view.files, refs, link_root))
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
