"""Derived navigation files: ``_index/**`` (JSON listings), ``_graph/**`` (per-file relations)
and an ``index.md`` for each directory (the root too) without a navigation page of its own.
Readable like other files, marked as navigation, never search results and never answer evidence."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterator, Mapping, Set
from typing import Any, Protocol

import orjson

from knowledge_base.domain.files import FileKind, KbFile, generated_file_id
from knowledge_base.domain.relations import Relation
from knowledge_base.domain.rendering import Lazy, RenderCache, Rendered

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


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _listing_json(data: Any) -> str:
    """:func:`_json` of a listing (strings, integers, booleans: no floats, whose exponents orjson
    writes otherwise), byte for byte, by orjson: a 20,000-file catalog renders in ~40 ms instead
    of ~300 ms, for its first reader. What orjson refuses (a lone surrogate, an
    integer past 64 bits) goes the slow way."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode() + "\n"
    except orjson.JSONEncodeError:
        return _json(data)


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


class _Renders:
    """What the derived files are rendered from, captured when the view is built: its sources by
    path and by directory, its folders then, its relations (never the view itself, which holds
    the files that hold these renders)."""

    def __init__(self, view: NavigationSource, sources: list[KbFile], directories: Set[str]) -> None:
        self.name = view.name or view.kb_id
        self.revision = view.revision
        self.relations = view.relations
        self.indexes = directory_indexes(view)
        self.children: dict[str, list[KbFile]] = {}
        for file in sources:
            self.children.setdefault(posixpath.dirname(file.path), []).append(file)
        self.subdirs: dict[str, list[str]] = {}
        for directory in sorted(directories):
            if directory:
                self.subdirs.setdefault(posixpath.dirname(directory), []).append(directory)

    def catalog(self, sources: list[KbFile]) -> str:
        return _listing_json({"revision": self.revision, "files": [_entry(f) for f in sources]})

    def tags(self, sources: list[KbFile]) -> str:
        tags: dict[str, list[str]] = {}
        for file in sources:
            for tag in file.tags:
                tags.setdefault(tag, []).append(file.path)
        return _listing_json({"revision": self.revision, "tags": tags})

    def listing(self, directory: str) -> str:
        return _listing_json({"directory": directory, "directories": self.subdirs.get(directory, []),
                              "files": [_entry(f) for f in self.children.get(directory, [])]})

    def page(self, directory: str) -> str:
        lines = [f"# {directory or self.name}", ""]
        for sub in self.subdirs.get(directory, []):
            target = posixpath.relpath(self.indexes.get(sub, f"{sub}/index.md"), directory or ".")
            lines.append(f"- [{posixpath.basename(sub)}/]({target})")
        lines += [f"- [{f.title}]({posixpath.basename(f.path)})" for f in self.children.get(directory, [])]
        return "\n".join(lines) + "\n"

    def graph(self, file: KbFile) -> str:
        relations = [
            {"path": r.target_path, "relationType": r.relation_type, "direction": r.direction,
             "weight": r.weight, "reason": r.reason}
            for r in self.relations.get(file.path, [])
        ]
        return _json({"fileId": file.file_id, "path": file.path, "relations": relations})


def navigation_files(view: NavigationSource, graph_path: Callable[[str], str]) -> Iterator[KbFile]:
    """The derived files of ``view``, each without content: it is rendered when read, through
    one bounded cache per view (``domain/rendering.py``)."""
    sources = [f for _, f in sorted(view.files.items()) if not f.navigation]
    directories = set(view.directories)  # the source's folders (the caller adds those of what is yielded)
    renders = _Renders(view, sources, directories)
    cache = RenderCache()

    def generated(path: str, kind: FileKind, title: str, description: str, lazy: Callable[[], Rendered]) -> KbFile:
        return KbFile(view.kb_id, generated_file_id(view.kb_id, path), path, kind, title, description, "", "",
                      render=lazy)

    catalog = "_index/catalog.json"
    yield generated(catalog, "index_catalogue", "Catalogue", "Every source file of the knowledge base.",
                    Lazy(cache, catalog, renders.catalog, sources))
    tags = "_index/tags.json"
    yield generated(tags, "index_catalogue", "Tags", "Source files by tag.", Lazy(cache, tags, renders.tags, sources))
    listed, paged, graphed = renders.listing, renders.page, renders.graph  # one bound method each, not one a file
    for directory in sorted({"", *directories}):
        listing = f"_index/directories/{directory or 'root'}.json"
        yield generated(listing, "index_catalogue", f"Directory {directory or '/'}",
                        f"Files and folders in {directory or '/'}.", Lazy(cache, listing, listed, directory))
        if directory not in renders.indexes:  # no index.md, README.md or _index.md of its own
            index_md = posixpath.join(directory, "index.md") if directory else "index.md"
            yield generated(index_md, "directory_index", f"Index of {directory or '/'}",
                            f"Navigation page of {directory or 'the knowledge base'}.",
                            Lazy(cache, index_md, paged, directory))
    for file in sources:
        if file.available:
            path = graph_path(file.path)
            yield generated(path, "graph", f"Relations of {file.title}", f"Relations of {file.path}.",
                            Lazy(cache, path, graphed, file))
