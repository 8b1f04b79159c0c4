"""knowledge-base's derived state: per base, the latest apply and the file contents received.

``apply`` is an idempotent upsert per record, so a redelivery changes nothing and a store
rebuilt from offset zero has the same digest. Each base keeps up to two contents per path
(by sha256): the files of the next apply may arrive before or after its manifest.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.framework.rebuildable import Rebuildable
from knowledge_base.domain.view import BaseView, ParsedCache, build_view

KEEP_VERSIONS = 2


@dataclass
class BaseRecord:
    kb_id: str
    name: str = ""
    readers: frozenset[str] = frozenset()
    revision: int = 0
    manifest: dict[str, str] = field(default_factory=dict)
    contents: dict[str, OrderedDict[str, str]] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    version: int = 0
    link_root: str = ""
    """Bumps on every change to the view (the manifest or one of its contents): views and
    indexes are cached per version."""

    @property
    def applied(self) -> bool:
        return self.revision > 0

    def content_of(self, path: str) -> str | None:
        sha = self.manifest.get(path)
        versions = self.contents.get(path)
        return versions.get(sha) if versions is not None and sha is not None else None


class KnowledgeState:
    checkpoint_version = 1

    def __init__(self) -> None:
        self.bases: dict[str, BaseRecord] = {}
        self._views: dict[str, tuple[int, BaseView]] = {}
        self._parsed: dict[str, ParsedCache] = {}
        self._view_lock = threading.Lock()

    def _base(self, kb_id: str) -> BaseRecord:
        base = self.bases.get(kb_id)
        if base is None:
            base = self.bases[kb_id] = BaseRecord(kb_id)
        return base

    def apply(self, record: ev.EventRecord) -> None:
        event = record.event
        match event:
            case ev.KnowledgeFileUpserted():
                base = self._base(event.kb_id)
                versions = base.contents.setdefault(event.path, OrderedDict())
                if versions.get(event.content_sha256) == event.content:
                    return
                versions[event.content_sha256] = event.content
                versions.move_to_end(event.content_sha256)
                current = base.manifest.get(event.path)
                while len(versions) > KEEP_VERSIONS:
                    oldest = next(iter(versions))
                    if oldest == current and len(versions) > 1:
                        versions.move_to_end(oldest)
                        oldest = next(iter(versions))
                    versions.pop(oldest)
                base.removed.discard(event.path)
                if current == event.content_sha256:  # a file of the next apply changes no view
                    base.version += 1
            case ev.KnowledgeFileRemoved():  # a view reads only the manifest's contents
                base = self._base(event.kb_id)
                if event.path not in base.manifest:
                    base.contents.pop(event.path, None)
                else:
                    base.removed.add(event.path)
            case ev.KnowledgeBaseApplied():
                base = self._base(event.kb_id)
                # an unchanged folder applied again changes no view: its index (rebuilt whole,
                # seconds on a large base, searches waiting for it) is kept
                same = base.applied and (base.name, base.readers, base.revision, base.manifest, base.link_root) == (
                    event.name, frozenset(event.readers), event.content_revision, event.manifest, event.link_root)
                base.name, base.readers = event.name, frozenset(event.readers)
                base.revision, base.manifest = event.content_revision, dict(event.manifest)
                base.link_root = event.link_root
                for path in [p for p in base.removed if p not in base.manifest]:
                    base.contents.pop(path, None)
                base.removed &= set(base.manifest)
                if not same:
                    base.version += 1

    def view(self, kb_id: str) -> BaseView | None:
        """The readable view of a base (cached until the base changes); None if never applied.
        Built by one thread at a time (the index build's and the readers' worker threads ask
        for it together after an apply): the others wait for it instead of building it again."""
        base = self.bases.get(kb_id)
        if base is None or not base.applied:
            return None
        cached = self._views.get(kb_id)
        if cached is not None and cached[0] == base.version:
            return cached[1]
        with self._view_lock:
            return self._build_view(base)

    def _build_view(self, base: BaseRecord) -> BaseView:
        kb_id, version = base.kb_id, base.version  # the fold may move on while this thread builds
        cached = self._views.get(kb_id)
        if cached is not None and cached[0] == version:
            return cached[1]
        parsed = self._parsed.setdefault(kb_id, {})
        view = build_view(base.kb_id, base.name, base.revision, base.readers, base.manifest,
                          {p: base.content_of(p) for p in base.manifest}, parsed, base.link_root)
        live = set(base.manifest.items())
        for key in [k for k in parsed if k not in live]:
            del parsed[key]
        self._views[kb_id] = (version, view)
        return view

    def checkpoint_data(self) -> dict[str, Any]:
        return {"bases": {
            k: {"name": b.name, "readers": sorted(b.readers), "revision": b.revision,
                "manifest": b.manifest, "removed": sorted(b.removed),
                "contents": {p: list(v.items()) for p, v in b.contents.items()},
                **({"link_root": b.link_root} if b.link_root else {})}
            for k, b in self.bases.items()
        }}

    def restore_checkpoint(self, data: dict[str, Any]) -> None:
        bases = {}
        for kb_id, raw in data["bases"].items():
            bases[kb_id] = BaseRecord(
                kb_id, str(raw["name"]), frozenset(raw["readers"]), int(raw["revision"]),
                dict(raw["manifest"]),
                {p: OrderedDict((str(sha), str(text)) for sha, text in v) for p, v in raw["contents"].items()},
                set(raw["removed"]), version=1, link_root=str(raw.get("link_root", "")),
            )
        self.bases = bases  # all or nothing: assigned only once every base decoded

    def snapshot(self) -> dict[str, Any]:
        sections: dict[str, Any] = {
            "bases": {
                k: {"name": b.name, "readers": sorted(b.readers), "revision": b.revision,
                    "manifest": dict(sorted(b.manifest.items())),
                    **({"linkRoot": b.link_root} if b.link_root else {})}
                for k, b in sorted(self.bases.items()) if b.applied
            },
        }
        for kb_id, base in sorted(self.bases.items()):
            sections[f"files:{kb_id}"] = {p: sorted(v) for p, v in sorted(base.contents.items())}
        return sections


REBUILDABLE = Rebuildable("knowledge-base", lambda: nullcontext(KnowledgeState()), "http://127.0.0.1:30785")
"""`clctl replay knowledge-base` folds the same topics into this store (entry point ``bkn.replay``)."""
