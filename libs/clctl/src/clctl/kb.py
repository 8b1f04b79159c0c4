"""``clctl kb apply``: a knowledge-base folder as people have it, as versioned events.

A problem that concerns one file or one link is a warning: the file is published (with derived
fields when its frontmatter is missing or broken) or skipped (too large, not UTF-8), the link is
left out of the relations, and the report lists each warning with file, line and reason, then a
summary. ``--strict`` refuses the folder on any warning or broken curated rule (pages need
``title``, ``description``, ``tags``; ``index.md`` at the root), listing every problem, nothing
published. A folder that cannot be read and a path under the reserved ``_index/`` or ``_graph/``
always refuse. Then: changed and new files are upserted, files missing from the folder are
removed, and one ``knowledge_base.applied`` carries name, readers, manifest, link root and the
``activeContentRevision``, which moves only when readable content changed.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.progress import Progress

from bkn_common.contracts import events as ev
from bkn_common.domain.kb_links import LinkResolver, Resolved, is_navigation_name
from bkn_common.domain.kb_source import (
    RESERVED_ROOTS,
    SourceDocument,
    decode_text,
    derive_metadata,
    normalize_path,
    parse_source,
)

KB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
ACCOUNT = re.compile(r"^[^\s,]{1,128}$")
PROGRESS_FROM_FILES = 500
ROOT_INDEXES = ("index.md", "readme.md", "_index.md")


class KnowledgeBaseRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


@dataclass(frozen=True)
class ApplyWarning:
    """One file's or one link's problem: reported, never a refusal (except with ``--strict``)."""

    path: str
    line: int
    kind: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class LoadedBase:
    files: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    warnings: list[ApplyWarning] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    derived: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Path -> the metadata fields derived for it (title, description)."""
    asset_links: int = 0
    link_root: str = ""

    def manifest(self) -> dict[str, str]:
        return {p: hashlib.sha256(c.encode()).hexdigest() for p, c in self.files.items()}

    def has_root_index(self) -> bool:
        return any(p.casefold() in ROOT_INDEXES for p in self.files)

    def summary(self) -> str:
        fields = Counter(f for derived in self.derived.values() for f in derived)
        kinds = Counter(w.kind for w in self.warnings)
        parts = [f"{len(self.files)} files published"]
        if self.derived:
            parts.append(f"{len(self.derived)} with derived fields ("
                         + ", ".join(f"{k} {n}" for k, n in sorted(fields.items())) + ")")
        parts.append(f"{len(self.skipped)} skipped")
        parts.append(f"{len(self.warnings)} warnings" + (
            " (" + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")" if kinds else ""))
        if self.asset_links:
            parts.append(f"{self.asset_links} links to assets (not indexed)")
        text = "; ".join(parts)
        if not self.has_root_index():
            text += "; no index.md, README.md or _index.md at the root: the service generates index.md"
        return text


def _markdown_and_assets(folder: Path) -> tuple[list[tuple[str, Path]], set[str]]:
    """The folder's Markdown files and the paths of every other file (hidden ones left out)."""
    try:
        entries = sorted(folder.rglob("*"))
    except OSError as exc:
        raise KnowledgeBaseRefused([f"{folder}: cannot be read ({exc.strerror or exc})"]) from exc
    markdown, assets = [], set()
    for file in entries:
        relative = file.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in Path(relative).parts) or not file.is_file():
            continue
        if relative.endswith(".md"):
            markdown.append((relative, file))
        else:
            assets.add(normalize_path(relative))
    return markdown, assets


def load_folder(folder: Path, max_file_bytes: int, *, strict: bool = False, link_root: str = "",
                progress: Callable[[int, int], None] | None = None) -> LoadedBase:
    """Read every Markdown file of ``folder`` with its warnings; raise when the folder is
    unusable, or (``strict``) with every problem found."""
    if not folder.is_dir():
        raise KnowledgeBaseRefused([f"{folder}: not a folder"])
    markdown, assets = _markdown_and_assets(folder)
    fatal: list[str] = []
    problems: list[str] = []
    loaded = LoadedBase(link_root=link_root)
    documents: dict[str, SourceDocument] = {}

    def skip(path: str, kind: str, reason: str) -> None:
        loaded.skipped.append(path)
        loaded.warnings.append(ApplyWarning(path, 1, kind, reason))
        problems.append(f"{path}: {reason.split('; skipped')[0]}")

    for done, (relative, file) in enumerate(markdown, start=1):
        if progress is not None:
            progress(done, len(markdown))
        path = normalize_path(relative)
        if path.startswith(RESERVED_ROOTS):
            fatal.append(f"{path}: {path.split('/')[0]}/ is reserved for files the service derives")
            continue
        try:
            size = file.stat().st_size
            raw = file.read_bytes() if size <= max_file_bytes else b""
        except OSError as exc:
            skip(path, "unreadable", f"cannot be read ({exc.strerror or exc}); skipped")
            continue
        if size > max_file_bytes:
            skip(path, "too_large", f"{size} bytes is over the size limit of {max_file_bytes} bytes; skipped")
            continue
        text = decode_text(raw)
        if text is None:
            skip(path, "not_utf8", "not UTF-8 text; skipped (save it as UTF-8)")
            continue
        if path in loaded.files:
            skip(path, "duplicate_path", "two files normalise to the same path; skipped")
            continue
        doc = parse_source(path, text)
        problems.extend(doc.problems)
        loaded.warnings += [ApplyWarning(path, line, kind, reason) for line, kind, reason in doc.warnings]
        documents[path] = doc
        loaded.files[path] = text
        loaded.sizes[path] = len(text.encode())
    if strict and "index.md" not in loaded.files:
        problems.append("index.md: a knowledge base needs an index.md at its root")
    problems += _check_links(loaded, documents, assets)
    if fatal or (strict and problems):
        raise KnowledgeBaseRefused(fatal + (problems if strict else []))
    return loaded


def _check_links(loaded: LoadedBase, documents: dict[str, SourceDocument], assets: set[str]) -> list[str]:
    """Resolve every link with the service's rule: warnings for those that name nothing."""
    names = {}
    for path, doc in documents.items():
        meta = derive_metadata(path, doc.frontmatter, doc.body)
        names[path] = (meta.title, *meta.aliases)
        if meta.derived and not is_navigation_name(path):
            loaded.derived[path] = meta.derived
    resolver = LinkResolver(documents, names, assets, loaded.link_root)
    skipped = set(loaded.skipped)
    problems = []
    for path, doc in documents.items():
        for ref in doc.refs:
            found = resolver.resolve(path, ref)
            if found.outcome == "asset":
                loaded.asset_links += 1
            warning = _link_warning(ref.what, ref.target, found, skipped)
            if warning is not None:
                kind, reason = warning
                loaded.warnings.append(ApplyWarning(path, ref.line, kind, reason))
                problems.append(f"{path}: {reason}")
    return problems


def _link_warning(what: str, written: str, found: Resolved, skipped: set[str]) -> tuple[str, str] | None:
    shown = f"[[{written}]]" if what == "wikilink" else repr(found.path)
    if found.outcome == "outside":
        return "link_outside", f"{what} {shown} points outside the knowledge base"
    if found.outcome == "ambiguous":
        return "ambiguous_link", f"{what} {shown} names several files: {', '.join(found.candidates)}"
    if found.outcome != "dangling":
        return None
    if found.path in skipped or f"{found.path}.md" in skipped:
        return "dangling_link", f"{what} {shown} names a file that was skipped (see its warning)"
    if what == "wikilink":
        return "dangling_link", f"{what} {shown} names no file, title or alias of the knowledge base"
    return "dangling_link", f"{what} {shown} names no file of the knowledge base"


@contextmanager
def folder_progress(stream: Any = None) -> Iterator[Callable[[int, int], None]]:
    """A progress callback for :func:`load_folder` that shows a bar (on stderr) only for
    folders of ``PROGRESS_FROM_FILES`` Markdown files or more."""
    bar: Progress | None = None
    task = None

    def update(done: int, total: int) -> None:
        nonlocal bar, task
        if total < PROGRESS_FROM_FILES:
            return
        if bar is None:
            from rich.console import Console
            bar = Progress(console=Console(file=stream or sys.stderr), transient=True)
            bar.start()
            task = bar.add_task("reading files", total=total)
        if task is not None and (done % 50 == 0 or done == total):
            bar.update(task, completed=done)

    try:
        yield update
    finally:
        if bar is not None:
            bar.stop()


def report_lines(loaded: LoadedBase) -> list[str]:
    """The apply report: every warning (file:line: reason), then the summary."""
    lines = [f"warnings ({len(loaded.warnings)}):"] if loaded.warnings else []
    lines += [f"  {w}" for w in sorted(loaded.warnings, key=lambda w: (w.path, w.line, w.kind))]
    return [*lines, loaded.summary()]


def check_identity(kb_id: str, readers: list[str]) -> None:
    problems = []
    if not KB_ID.match(kb_id):
        problems.append(f"--kb {kb_id!r}: 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit")
    problems += [f"--reader {r!r}: not an account id" for r in readers if not ACCOUNT.match(r)]
    if problems:
        raise KnowledgeBaseRefused(problems)


def apply_events(
    kb_id: str, name: str, readers: list[str], loaded: LoadedBase,
    previous: ev.KnowledgeBaseApplied | None,
) -> list[ev.Event]:
    """File upserts and removals, then the base record (always last)."""
    manifest = loaded.manifest()
    before = previous.manifest if previous else {}
    events: list[ev.Event] = [
        ev.KnowledgeFileUpserted(kb_id=kb_id, path=p, content=loaded.files[p], content_sha256=sha,
                                 size_bytes=loaded.sizes[p])
        for p, sha in sorted(manifest.items()) if before.get(p) != sha
    ]
    events += [ev.KnowledgeFileRemoved(kb_id=kb_id, path=p) for p in sorted(set(before) - set(manifest))]
    changed = previous is None or manifest != before or loaded.link_root != previous.link_root
    revision = (previous.content_revision if previous else 0) + (1 if changed else 0)
    events.append(ev.KnowledgeBaseApplied(
        kb_id=kb_id, name=name or (previous.name if previous else kb_id),
        readers=tuple(dict.fromkeys(readers)), content_revision=revision, manifest=manifest,
        link_root=loaded.link_root,
    ))
    return events


class LatestApplies:
    """Folds ``bkn.knowledge-bases.v1``: the latest apply of every base."""

    def __init__(self) -> None:
        self.applies: dict[str, ev.KnowledgeBaseApplied] = {}

    def apply(self, record: ev.EventRecord) -> None:
        if isinstance(record.event, ev.KnowledgeBaseApplied):
            self.applies[record.event.kb_id] = record.event

    def snapshot(self) -> dict[str, Any]:
        return {"bases": {k: v.content_revision for k, v in self.applies.items()}}
