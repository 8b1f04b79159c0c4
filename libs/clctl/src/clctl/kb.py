"""``clctl kb apply``: a knowledge-base folder, validated as a whole, as versioned events.

Every problem is listed and nothing is published when any is found: bad frontmatter, a link
or frontmatter relation outside the base or to a file it does not have, a file over the size
limit, a file that is not UTF-8, a path under the reserved ``_index/`` or ``_graph/``, no
``index.md``. Then: changed and new files are upserted, files missing from the folder are
removed, and one ``knowledge_base.applied`` carries name, readers, manifest and the
``activeContentRevision``, which moves only when readable content changed.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bkn_common import events as ev
from bkn_common.kb_source import RESERVED_ROOTS, SourceDocument, base_problems, normalize_path, parse_source

KB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
ACCOUNT = re.compile(r"^[^\s,]{1,128}$")


class KnowledgeBaseRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


@dataclass
class LoadedBase:
    files: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)

    def manifest(self) -> dict[str, str]:
        return {p: hashlib.sha256(c.encode()).hexdigest() for p, c in self.files.items()}


def load_folder(folder: Path, max_file_bytes: int) -> LoadedBase:
    """Read and validate every Markdown file of ``folder``; raise with every problem found."""
    if not folder.is_dir():
        raise KnowledgeBaseRefused([f"{folder}: not a folder"])
    problems: list[str] = []
    loaded = LoadedBase()
    documents: dict[str, SourceDocument] = {}
    for file in sorted(folder.rglob("*.md")):
        relative = file.relative_to(folder).as_posix()
        if any(part.startswith(".") for part in Path(relative).parts) or not file.is_file():
            continue
        path = normalize_path(relative)
        size = file.stat().st_size
        if path.startswith(RESERVED_ROOTS):
            problems.append(f"{path}: {path.split('/')[0]}/ is reserved for files the service derives")
            continue
        if size > max_file_bytes:
            problems.append(f"{path}: {size} bytes is over the size limit of {max_file_bytes} bytes")
            continue
        try:
            text = file.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"{path}: not UTF-8 text")
            continue
        if path in loaded.files:
            problems.append(f"{path}: two files normalise to the same path")
            continue
        text = text.removeprefix("\ufeff").replace("\r\n", "\n")
        doc = parse_source(path, text)
        problems.extend(doc.problems)
        documents[path] = doc
        loaded.files[path] = text
        loaded.sizes[path] = len(text.encode())
    if "index.md" not in loaded.files:
        problems.append("index.md: a knowledge base needs an index.md at its root")
    problems.extend(base_problems(documents))
    if problems:
        raise KnowledgeBaseRefused(problems)
    return loaded


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
    changed = previous is None or manifest != before
    revision = (previous.content_revision if previous else 0) + (1 if changed else 0)
    events.append(ev.KnowledgeBaseApplied(
        kb_id=kb_id, name=name or (previous.name if previous else kb_id),
        readers=tuple(dict.fromkeys(readers)), content_revision=revision, manifest=manifest,
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
