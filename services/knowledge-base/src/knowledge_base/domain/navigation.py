"""Derived navigation files: ``_index/**`` (JSON listings), ``_graph/**`` (per-file relations)
and an ``index.md`` for each directory (the root too) without a navigation page of its own.
Readable like other files, marked as navigation, never search results and never answer evidence."""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Callable, Iterator, Mapping, Set
from typing import Any, Protocol

from knowledge_base.domain.files import KbFile, generated_file_id
from knowledge_base.domain.relations import Relation

_INDEX_NAMES = frozenset({"index.md", "readme.md", "_index.md"})
_INDEX_ORDER = {"index.md": 0, "Index.md": 1, "INDEX.md": 2, "README.md": 3, "readme.md": 4, "Readme.md": 5,
                "_index.md": 6}


class NavigationSource(Protocol):
    """What the navigation files are derived from: view.py's ``BaseView`` as far as its sources
    are built (named by its fields here, so that view.py, which calls this module, is not
    imported back)."""

    @property
    def kb_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def revision(self) -> int: ...
    @property
    def files(self) -> Mapping[str, KbFile]: ...
    @property
    def directories(self) -> Set[str]: ...
    @property
    def relations(self) -> Mapping[str, list[Relation]]: ...


def _generated(view: NavigationSource, path: str, kind: str, title: str, description: str, content: str) -> KbFile:
    sha = hashlib.sha256(content.encode()).hexdigest()
    return KbFile(view.kb_id, generated_file_id(view.kb_id, path), path, kind, title,  # type: ignore[arg-type]
                  description, content, sha, body=content)


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _entry(file: KbFile) -> dict[str, Any]:
    return {"fileId": file.file_id, "path": file.path, "title": file.title,
            "description": file.description, "tags": list(file.tags), "fileKind": file.kind,
            "contentAvailable": file.available}


def directory_indexes(view: NavigationSource) -> dict[str, str]:
    """Directory -> its own navigation page (``index.md``, else ``README.md``, else ``_index.md``)."""
    found: dict[str, str] = {}
    for path, file in sorted(view.files.items(), key=lambda kv: _INDEX_ORDER.get(posixpath.basename(kv[0]), 9)):
        if file.kind == "index" and file.source and posixpath.basename(path).casefold() in _INDEX_NAMES:
            found.setdefault(posixpath.dirname(path), path)
    return found


def navigation_files(view: NavigationSource, graph_path: Callable[[str], str]) -> Iterator[KbFile]:
    sources = [f for _, f in sorted(view.files.items()) if not f.navigation]
    directories = set(view.directories)  # the source's folders (the caller adds those of what is yielded)
    yield _generated(view, "_index/catalog.json", "index_catalogue", "Catalogue",
                     "Every source file of the knowledge base.",
                     _json({"revision": view.revision, "files": [_entry(f) for f in sources]}))
    tags: dict[str, list[str]] = {}
    for file in sources:
        for tag in file.tags:
            tags.setdefault(tag, []).append(file.path)
    yield _generated(view, "_index/tags.json", "index_catalogue", "Tags", "Source files by tag.",
                     _json({"revision": view.revision, "tags": tags}))
    indexes = directory_indexes(view)
    for directory in sorted({"", *directories}):
        children = [f for f in sources if posixpath.dirname(f.path) == directory]
        subdirs = sorted(d for d in directories if d and posixpath.dirname(d) == directory)
        listing = directory or "root"
        yield _generated(view, f"_index/directories/{listing}.json", "index_catalogue",
                         f"Directory {directory or '/'}", f"Files and folders in {directory or '/'}.",
                         _json({"directory": directory, "directories": subdirs,
                                "files": [_entry(f) for f in children]}))
        if directory not in indexes:  # no index.md, README.md or _index.md of its own
            index_md = posixpath.join(directory, "index.md") if directory else "index.md"
            lines = [f"# {directory or view.name or view.kb_id}", ""]
            for sub in subdirs:
                target = posixpath.relpath(indexes.get(sub, f"{sub}/index.md"), directory or ".")
                lines.append(f"- [{posixpath.basename(sub)}/]({target})")
            lines += [f"- [{f.title}]({posixpath.basename(f.path)})" for f in children]
            yield _generated(view, index_md, "directory_index", f"Index of {directory or '/'}",
                             f"Navigation page of {directory or 'the knowledge base'}.", "\n".join(lines) + "\n")
    for file in sources:
        if not file.available:
            continue
        relations = [
            {"path": r.target_path, "relationType": r.relation_type, "direction": r.direction,
             "weight": r.weight, "reason": r.reason}
            for r in view.relations.get(file.path, [])
        ]
        yield _generated(view, graph_path(file.path), "graph", f"Relations of {file.title}",
                         f"Relations of {file.path}.",
                         _json({"fileId": file.file_id, "path": file.path, "relations": relations}))
