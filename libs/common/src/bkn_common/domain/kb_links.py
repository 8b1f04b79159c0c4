"""Links of a knowledge-base file and the one rule that resolves them (clctl and the service).

Body links (``[x](t)``, reference definitions ``[id]: t``, Hugo ``{{< ref "t" >}}``,
``[[wikilinks]]``) and frontmatter relations (``related`` / ``references`` / ``see_also`` /
``superseded_by``) resolve alike: relative to the linking file (RFC 3986), then, unless the
target starts with ``./`` or ``../``, from the base root (the base-root ``related`` paths of
curated bases); ``/x`` from the base root, after the ``--link-root`` prefix; with or without
``.md``; ``#anchor`` and ``?query`` stripped; percent-encoding decoded. A wikilink names a file
by its unique file name, else its unique title or alias. Targets the folder holds that are not
Markdown are assets: never relations, never problems.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote

RELATION_KEYS = ("related", "references", "see_also")
NAVIGATION_NAMES = frozenset({"index.md", "_index.md", "readme.md"})
"""File names (any case) that are a directory's navigation page; with ``SUMMARY.md`` and
``TOC*.md`` in capitals (a ``toc.md`` or ``summary.md`` is usually a page about them)."""
_TOC = re.compile(r"^(TOC(?![A-Za-z]).*|SUMMARY)\.md$")
_CODE = re.compile(r"^ {0,3}(```|~~~)[^\n]*\n.*?(?:^ {0,3}\1[^\n]*$|\Z)|`[^`\n]+`|<!--.*?(?:-->|\Z)",
                   re.MULTILINE | re.DOTALL)
# Every repetition is bounded, so a pathological line ("[a](" ten thousand times) costs linear
# time, not quadratic: a link's text, target and title are at most a few hundred characters,
# and a target written without <> holds no brackets or parentheses.
_INLINE = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]{0,200}\]){0,500})\]\(\s{0,20}(<[^>\n]{0,1000}>|[^()\[\]\s]{1,2000})"
    r"(?:\s{1,20}(?:\"[^\"\n]{0,500}\"|'[^'\n]{0,500}'))?\s{0,20}\)")
_DEFINITION = re.compile(r"^ {0,3}\[([^\]\n^][^\]\n]{0,500})\]:[ \t]*(<[^>\n]{0,1000}>|\S{1,2000})", re.MULTILINE)
_WIKI = re.compile(r"(!?)\[\[([^\[\]\n|]{1,500}?)(?:\|[^\[\]\n]{0,500})?\]\]")
_HUGO_REF = re.compile(r"\{\{[<%]\s{0,20}(?:rel)?ref\s{1,20}\"([^\"\n]{1,1000})\"\s{0,20}[>%]\}\}")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_WIKI_VALUE = re.compile(r"^!?\[\[([^\[\]|]+?)(?:\|[^\[\]]*)?\]\]$")

Outcome = Literal["file", "asset", "directory", "external", "anchor", "outside", "dangling", "ambiguous"]


@dataclass(frozen=True)
class LinkRef:
    """One link as written: ``key`` is ``link``, ``image``, a frontmatter relation key or
    ``superseded_by``; ``line`` counts from 1 in the whole file."""

    target: str
    line: int
    key: str = "link"
    wiki: bool = False

    @property
    def what(self) -> str:
        kind = "wikilink" if self.wiki else self.key
        return kind if kind in ("link", "image", "wikilink") else f"frontmatter {kind}"


@dataclass(frozen=True)
class Resolved:
    outcome: Outcome
    path: str | None = None
    """The base-relative path (file, asset, directory) or the path tried (outside, dangling)."""
    candidates: tuple[str, ...] = field(default=())


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def is_navigation_name(path: str) -> bool:
    """``index.md``, ``_index.md``, ``README.md`` (any case), ``SUMMARY.md``, ``TOC*.md``."""
    name = posixpath.basename(path)
    return name.casefold() in NAVIGATION_NAMES or bool(_TOC.match(name))


def _blank_code(body: str) -> str:
    """The body with code blocks, code spans and HTML comments blanked (line breaks kept, so
    lines still count)."""
    return _CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), body)


def body_links(body: str, first_line: int = 1) -> tuple[LinkRef, ...]:
    """Every link of a Markdown body outside code, in order; ``first_line``: the body's line."""
    text = _blank_code(body) if "`" in body or "~~~" in body or "<!--" in body else body
    found: list[tuple[int, str, str, bool]] = []  # (offset, target, key, wiki)
    for m in _INLINE.finditer(text):
        target = m.group(3)[1:-1] if m.group(3).startswith("<") else m.group(3)
        found.append((m.start(), target, "image" if m.group(1) else "link", False))
    for m in _DEFINITION.finditer(text):
        target = m.group(2)[1:-1] if m.group(2).startswith("<") else m.group(2)
        found.append((m.start(), target, "link", False))
    found += [(m.start(), m.group(2), "link", True) for m in _WIKI.finditer(text)]
    found += [(m.start(), m.group(1), "link", False) for m in _HUGO_REF.finditer(text)]
    found.sort(key=lambda link: link[0])
    refs, line, counted = [], first_line, 0
    for offset, target, key, wiki in found:  # lines counted once through the text, not per link
        line += text.count("\n", counted, offset)
        counted = offset
        refs.append(LinkRef(target, line, key, wiki))
    return tuple(refs)


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def frontmatter_links(frontmatter: Mapping[str, Any], lines: Mapping[str, int]) -> tuple[LinkRef, ...]:
    """Relations named by frontmatter keys (``lines``: key -> its line in the file)."""
    refs = []
    for key in (*RELATION_KEYS, "superseded_by"):
        for value in _values(frontmatter.get(key)):
            wiki = _WIKI_VALUE.match(value.strip())
            target = wiki.group(1) if wiki else value
            refs.append(LinkRef(target, lines.get(key, 1), key, wiki=bool(wiki)))
    return tuple(refs)


class LinkResolver:
    """Resolves links against one base: its Markdown paths, their titles and aliases, and
    (for clctl's report) the other files the folder holds."""

    def __init__(self, paths: Iterable[str], names: Mapping[str, Iterable[str]] | None = None,
                 assets: Iterable[str] = (), link_root: str = "") -> None:
        self.paths = frozenset(paths)
        self.assets = frozenset(assets)
        root = link_root.strip().strip("/")
        self.link_root = f"/{root}/" if root else ""
        self.directories: set[str] = set()
        self.dir_index: dict[str, str] = {}
        self.folded: dict[str, list[str]] = defaultdict(list)
        self.stems: dict[str, list[str]] = defaultdict(list)
        self.titles: dict[str, list[str]] = defaultdict(list)
        self.asset_names: dict[str, list[str]] = defaultdict(list)
        for path in sorted(self.paths):
            self.folded[path.casefold()].append(path)
            self.stems[posixpath.basename(path).removesuffix(".md").casefold()].append(path)
            parent = posixpath.dirname(path)
            if is_navigation_name(path) and not _TOC.match(posixpath.basename(path)):
                current = self.dir_index.get(parent)
                if current is None or _index_rank(path) < _index_rank(current):
                    self.dir_index[parent] = path
            while parent:
                self.directories.add(parent)
                parent = posixpath.dirname(parent)
        for asset in sorted(self.assets):
            self.asset_names[posixpath.basename(asset).casefold()].append(asset)
        for path, titles in sorted((names or {}).items()):
            for title in dict.fromkeys(t.strip().casefold() for t in titles if t.strip()):
                self.titles[title].append(path)

    def resolve(self, from_path: str, ref: LinkRef) -> Resolved:
        if ref.wiki:
            return self._wiki(from_path, ref.target)
        target = ref.target.strip()
        if not target or target.startswith("#"):
            return Resolved("anchor")
        if _SCHEME.match(target) or target.startswith("//"):
            return Resolved("external")
        target = nfc(unquote(target.split("#", 1)[0].split("?", 1)[0]))
        if not target:
            return Resolved("anchor")
        tries = []
        if target.startswith("/"):
            if self.link_root and (target + "/").startswith(self.link_root):
                tries.append(posixpath.normpath(target[len(self.link_root):] or "."))
            tries.append(posixpath.normpath(target.lstrip("/") or "."))
        else:
            tries.append(posixpath.normpath(posixpath.join(posixpath.dirname(from_path), target)))
            if not target.startswith(("./", "../")):
                tries.append(posixpath.normpath(target))
        for path in tries:
            if path != ".." and not path.startswith("../"):
                found = self._lookup(path)
                if found is not None:
                    return found
        inside = [p for p in tries if p != ".." and not p.startswith("../")]
        return Resolved("dangling", inside[0]) if inside else Resolved("outside", tries[0])

    def _lookup(self, path: str) -> Resolved | None:
        path = "" if path == "." else path
        for candidate in (path, f"{path}.md", _html_to_md(path)):
            if candidate in self.paths:
                return Resolved("file", candidate)
        if path in self.dir_index:
            return Resolved("file", self.dir_index[path])
        if path in self.assets:
            return Resolved("asset", path)
        if path in self.directories or not path:
            return Resolved("directory", path)
        for candidate in (path, f"{path}.md"):
            folded = self.folded.get(candidate.casefold(), [])
            if len(folded) == 1:
                return Resolved("file", folded[0])
        return None

    def _wiki(self, from_path: str, written: str) -> Resolved:
        name = nfc(written.split("#", 1)[0].strip())
        if not name:
            return Resolved("anchor")
        if "/" in name:
            for path in (posixpath.normpath(posixpath.join(posixpath.dirname(from_path), name)),
                         posixpath.normpath(name.lstrip("/"))):
                found = None if path.startswith("../") else self._lookup(path)
                if found is not None:
                    return found
        base = posixpath.basename(name)
        extension = posixpath.splitext(base)[1].casefold()
        if extension and extension != ".md" and " " not in extension:
            return _one(self.asset_names.get(base.casefold(), []), "asset", name)
        key = base.casefold().removesuffix(".md")
        by_name = self.stems.get(key, [])
        if by_name:
            return _one(by_name, "file", name)
        return _one(self.titles.get(name.casefold(), []), "file", name)


def _one(paths: list[str], outcome: Outcome, name: str) -> Resolved:
    if len(paths) == 1:
        return Resolved(outcome, paths[0])
    if paths:
        return Resolved("ambiguous", name, tuple(sorted(paths)))
    return Resolved("dangling", name)


def _index_rank(path: str) -> int:
    order = ("index.md", "readme.md", "_index.md")
    name = posixpath.basename(path)
    return (order.index(name.casefold()) * 2 if name.casefold() in order else 8) + (name != name.casefold())


def _html_to_md(path: str) -> str:
    for suffix in (".html", ".htm"):
        if path.endswith(suffix):
            return path[: -len(suffix)] + ".md"
    return path
