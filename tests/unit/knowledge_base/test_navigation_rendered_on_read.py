"""Derived navigation files are rendered when read: the view holds none of their text, a read
gives what the files always said, and the renders a view keeps are bounded."""

from __future__ import annotations

import gc
import hashlib
import json
from collections import deque
from types import BuiltinFunctionType, FunctionType, ModuleType
from typing import Any

from knowledge_base.domain.files import KbFile, generated_file_id, source_file_id
from knowledge_base.domain.rendering import CACHED_RENDERS, Lazy, RenderCache, Rendered
from knowledge_base.domain.view import BaseView, build_view, sha256_text
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader, get_file, read_file

SOURCES = {
    "guide/install.md": "---\ntitle: Install\ndescription: Set it up.\ntags: [setup]\n---\n"
                        "Install first, then [deploy](deploy.md).\n",
    "guide/deploy.md": "# Deploying\n\nRoll it out. 部署说明。\n",
    "notes.md": "---\ntitle: Notes\ntags: [setup, misc]\n---\nLoose notes.\n",
}


def built(revision: int = 3) -> BaseView:
    manifest = {path: sha256_text(text) for path, text in SOURCES.items()}
    contents: dict[str, str | None] = dict(SOURCES)
    return build_view("kb", "Guide", revision, frozenset({"dev"}), manifest, contents)


def _json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _entry(file: KbFile) -> dict[str, Any]:
    return {"fileId": file.file_id, "path": file.path, "title": file.title, "description": file.description,
            "tags": list(file.tags), "fileKind": file.kind, "contentAvailable": True}


def reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through containers and instances (not through
    functions, classes or modules, which lead to the whole interpreter)."""
    seen: set[int] = set()
    found: list[object] = []
    todo: deque[object] = deque([root])
    while todo:
        obj = todo.popleft()
        if id(obj) in seen or isinstance(obj, (type, ModuleType, FunctionType, BuiltinFunctionType)):
            continue
        seen.add(id(obj))
        found.append(obj)
        todo.extend(gc.get_referents(obj))
    return found


def test_generated_files_read_what_they_always_said() -> None:
    view = built()
    install, deploy, notes = (view.files[p] for p in ("guide/install.md", "guide/deploy.md", "notes.md"))
    expected = {
        "_index/catalog.json": _json({"revision": 3, "files": [_entry(deploy), _entry(install), _entry(notes)]}),
        "_index/tags.json": _json({"revision": 3, "tags": {"setup": ["guide/install.md", "notes.md"],
                                                           "misc": ["notes.md"]}}),
        "_index/directories/root.json": _json({"directory": "", "directories": ["guide"], "files": [_entry(notes)]}),
        "_index/directories/guide.json": _json({"directory": "guide", "directories": [],
                                                "files": [_entry(deploy), _entry(install)]}),
        "index.md": "# Guide\n\n- [guide/](guide/index.md)\n- [Notes](notes.md)\n",
        "guide/index.md": "# guide\n\n- [Deploying](deploy.md)\n- [Install](install.md)\n",
        "_graph/by-file/_files/notes.json": _json({"fileId": notes.file_id, "path": "notes.md", "relations": [
            {"path": "guide/install.md", "relationType": "shared_tag", "direction": "outgoing", "weight": 0.4,
             "reason": "Both files share tags: setup."}]}),
    }
    for path, content in expected.items():
        file = view.files[path]
        assert (file.source, file.navigation, file.file_id) == (False, True, generated_file_id("kb", path))
        assert file.content == file.body == content
        assert file.content_sha256 == hashlib.sha256(content.encode()).hexdigest()
        assert file.size_bytes == len(content.encode())
    graph = json.loads(view.files["_graph/by-file/_files/guide/install.json"].content)
    assert graph["fileId"] == source_file_id("kb", "guide/install.md")
    assert ("guide/deploy.md", "references", "outgoing") in {
        (r["path"], r["relationType"], r["direction"]) for r in graph["relations"]}


def test_the_view_holds_no_rendered_navigation_text_until_read() -> None:
    view, twin = built(), built()  # the twin renders what the view would
    derived = {p: twin.files[p].content for p, f in twin.files.items() if not f.source}
    assert any(p.startswith("_graph/") for p in derived) and "_index/catalog.json" in derived
    held = {obj for obj in reachable(view) if isinstance(obj, str)}
    assert not held & set(derived.values())
    assert all(f.stored_content == "" and f.render is not None for f in view.files.values() if not f.source)
    assert all(f.render is None for f in view.files.values() if f.source)
    catalog = view.files["_index/catalog.json"].content
    assert catalog == derived["_index/catalog.json"]
    assert catalog in {obj for obj in reachable(view) if isinstance(obj, str)}  # kept by the cache once read


def test_reading_every_generated_file_keeps_a_bounded_number_of_renders(
        demo_state: KnowledgeState, reader: Reader) -> None:
    view = demo_state.view("handbook")
    assert view is not None
    generated = sorted(p for p, f in view.files.items() if not f.source)
    assert len(generated) > CACHED_RENDERS
    answers = [read_file(demo_state, reader, "handbook", None, path) for path in generated]
    for path, answer in zip(generated, answers, strict=True):
        assert answer["file"]["path"] == path
        assert answer["file"]["contentSha256"] == hashlib.sha256(answer["content"].encode()).hexdigest()
        assert get_file(demo_state, reader, "handbook", answer["file"]["fileId"])["contentSha256"] == \
            answer["file"]["contentSha256"]
    renders = [obj for obj in reachable(view) if isinstance(obj, Rendered)]
    assert 1 <= len(renders) <= CACHED_RENDERS
    assert {r.content for r in renders} <= {a["content"] for a in answers[-CACHED_RENDERS:]}


def test_one_read_renders_once() -> None:
    calls: list[str] = []

    def render(text: str) -> str:
        calls.append(text)
        return text * 2

    cache = RenderCache()
    file = KbFile("kb", "generated-file-x", "_index/x.json", "index_catalogue", "X", "", "", "",
                  render=Lazy(cache, "_index/x.json", render, "é"))
    assert (file.size_bytes, file.content, file.content_sha256, file.body) == (
        4, "éé", hashlib.sha256("éé".encode()).hexdigest(), "éé")
    assert calls == ["é"]


def test_the_render_cache_is_bounded_in_entries_and_characters() -> None:
    cache = RenderCache(entries=2, chars=10)
    for key in ("a", "b", "c"):
        assert cache.get(key, lambda k=key: k * 3).content == key * 3
    assert (len(cache), cache.held_chars) == (2, 6)  # "a" went first
    cache.get("b", lambda: "never rendered again")
    cache.get("d", lambda: "dddd")  # 3 + 3 + 4 > 10: "c", the least recently read, goes
    assert (len(cache), cache.held_chars) == (2, 7)
    assert cache.get("b", lambda: "rendered again").content == "bbb"
    assert cache.get("c", lambda: "c again").content == "c again"
    big = cache.get("e", lambda: "e" * 50)  # bigger than the bound: kept alone, for the read asking it
    assert (len(cache), cache.held_chars, big.size_bytes) == (1, 50, 50)
