"""The capability index: catalogue state plus the lexical index, kept in step by events."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.domain.capability_view import described
from bkn_common.domain.catalog_state import CatalogState, capability_refs
from bkn_common.framework.rebuildable import Rebuildable
from capability_index.domain.bm25f import Candidates
from capability_index.domain.documents import skill_document, tool_document
from capability_index.domain.embeddings import Embedder
from capability_index.domain.ranking import LexicalIndex


@dataclass(frozen=True)
class Hit:
    ref: ev.CapabilityRef
    name: str
    description: str
    use_rule: str
    metadata_type: str | None
    score: float | None

    def as_dict(self) -> dict[str, object]:
        return {
            "capability_type": self.ref.capability_type,
            "capability_id": self.ref.capability_id,
            "owner_id": self.ref.owner_id,
            "name": self.name,
            "description": self.description,
            "use_rule": self.use_rule,
            "metadata_type": self.metadata_type,
            "score": self.score,
        }


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    total_matched: int
    mounted: int = 0  # capabilities bound to the network, before any filter


class CapabilityIndex:
    """Applies catalogue events and answers searches restricted to a network's mounts."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.catalog = CatalogState()
        self.lexical = LexicalIndex(embedder=embedder)
        self._refs: dict[str, ev.CapabilityRef] = {}
        self._metadata: dict[str, str | None] = {}
        # candidate restrictions per (network, filters), valid for one catalogue version
        self._restrictions: dict[tuple[object, ...], tuple[dict[str, ev.CapabilityRef], Candidates]] = {}
        self._restrictions_version = -1

    # -- projection ---------------------------------------------------------------------
    def apply(self, record: ev.EventRecord) -> None:
        if not self.catalog.apply(record):
            return
        event = record.event
        match event:
            case ev.ToolboxUpserted():
                self._reindex_owner("function", event.id, [t.id for t in event.tools])
            case ev.McpServerUpserted():
                self._reindex_owner("mcp_tool", event.id, [t.id for t in event.tools])
            case ev.SkillUpserted():
                doc = skill_document(event)
                self._store(ev.CapabilityRef(capability_type="skill", capability_id=event.id), None)
                self.lexical.upsert(doc)

    def _reindex_owner(self, capability_type: str, owner_id: str, tool_ids: Sequence[str]) -> None:
        current = {
            key for key, ref in self._refs.items()
            if ref.owner_id == owner_id and ref.capability_type == capability_type
        }
        keep = set()
        for tool_id in tool_ids:
            ref = ev.CapabilityRef(
                capability_type=capability_type, capability_id=tool_id, owner_id=owner_id
            )
            entry = self.catalog.tool_entry(ref)
            if entry is None:
                continue
            self._store(ref, entry.metadata_type)
            self.lexical.upsert(tool_document(entry))
            keep.add(ref.key)
        for stale in current - keep:
            self.lexical.remove(stale)
            self._refs.pop(stale, None)
            self._metadata.pop(stale, None)

    def _store(self, ref: ev.CapabilityRef, metadata_type: str | None) -> None:
        self._refs[ref.key] = ref
        self._metadata[ref.key] = metadata_type

    # -- checkpoint (bkn_common.framework.checkpoint.Checkpointable) --------------------------------
    checkpoint_version = 2  # 2: the lexical index as flat term and posting tables

    def checkpoint_data(self) -> dict[str, object]:
        return {
            "catalog": self.catalog.checkpoint_data(),
            "refs": [[r.capability_type, r.capability_id, r.owner_id, self._metadata.get(key)]
                     for key, r in self._refs.items()],
            "lexical": self.lexical.state(),
        }

    def restore_checkpoint(self, data: dict[str, Any]) -> None:
        catalog = CatalogState.from_checkpoint(data["catalog"])
        rows = data["refs"]
        refs = {ref.key: ref for ref in capability_refs(row[:3] for row in rows)}
        metadata: dict[str, str | None] = dict(zip(refs, (row[3] for row in rows), strict=True))
        self.lexical.load_state(data["lexical"])
        self.catalog, self._refs, self._metadata = catalog, refs, metadata

    def snapshot(self) -> dict[str, object]:
        docs = {key: self.lexical.get(key) for key in self._refs}
        return {
            **self.catalog.snapshot(),
            "index": {
                key: [d.name, d.description, d.use_rule, list(d.param_names), self._metadata.get(key)]
                for key, d in docs.items() if d is not None
            },
        }

    # -- queries --------------------------------------------------------------------------
    def _mounted_by_key(self, kn_id: str) -> dict[str, ev.CapabilityRef]:
        """The network's bindings by index key, in binding order (do not mutate)."""
        return self.catalog.bindings.get(kn_id, {})

    def _candidates(
        self,
        kn_id: str,
        types: Sequence[str] | None,
        metadata_types: Sequence[str] | None,
        owner_id: str | None,
    ) -> dict[str, ev.CapabilityRef]:
        """Mounted capabilities passing the filters, by key, in binding order (do not mutate)."""
        mounted = self._mounted_by_key(kn_id)
        if not types and not metadata_types and owner_id is None:
            return mounted
        out = {}
        for key, ref in mounted.items():
            if types and ref.capability_type not in types:
                continue
            if owner_id is not None and ref.owner_id != owner_id:
                continue
            if metadata_types and (
                ref.capability_type != "function"
                or self._metadata.get(key) not in metadata_types
            ):
                continue
            out[key] = ref
        return out

    def _hit(self, ref: ev.CapabilityRef, score: float | None) -> Hit | None:
        doc = self.lexical.get(ref.key)
        if doc is None:
            return None
        return Hit(ref, doc.name, doc.description, doc.use_rule, self._metadata.get(ref.key), score)

    def search(
        self,
        kn_id: str,
        *,
        query: str | None,
        types: Sequence[str] | None = None,
        metadata_types: Sequence[str] | None = None,
        owner_id: str | None = None,
        limit: int = 20,
    ) -> SearchResult:
        """Ranked (with ``query``) or binding-ordered (without) hits among the mounts."""
        by_key, restriction = self._restriction(kn_id, types, metadata_types, owner_id)
        mounted = len(self.catalog.bindings.get(kn_id, ()))
        if not query or not query.strip():
            indexed = [ref for key, ref in by_key.items() if self.lexical.get(key) is not None]
            hits = [h for ref in indexed[:limit] if (h := self._hit(ref, None)) is not None]
            return SearchResult(hits, len(indexed), mounted)
        ranking = self.lexical.rank(query, candidates=restriction, limit=limit)
        hits = [h for key, score in ranking.hits if (h := self._hit(by_key[key], score))]
        return SearchResult(hits, max(ranking.matched, len(hits)), mounted)

    def _restriction(
        self,
        kn_id: str,
        types: Sequence[str] | None,
        metadata_types: Sequence[str] | None,
        owner_id: str | None,
    ) -> tuple[dict[str, ev.CapabilityRef], Candidates]:
        """The candidates for one network and filter set, and their ranking restriction,
        reused until the catalogue changes (so neither is rebuilt on every search)."""
        if self._restrictions_version != self.catalog.version or len(self._restrictions) > 256:
            self._restrictions.clear()
            self._restrictions_version = self.catalog.version
        key = (kn_id, tuple(types or ()), tuple(metadata_types or ()), owner_id)
        cached = self._restrictions.get(key)
        if cached is None:
            by_key = self._candidates(kn_id, types, metadata_types, owner_id)
            cached = self._restrictions[key] = (by_key, self.lexical.candidates(by_key.keys()))
        return cached

    def describe(self, refs: Sequence[ev.CapabilityRef]) -> list[Hit]:
        """Index records for the given capabilities (those not indexed are left out)."""
        return [h for ref in refs if (h := self._hit(ref, None)) is not None]

    def resolve(self, kn_id: str, refs: Sequence[ev.CapabilityRef]) -> dict[str, object]:
        """Per capability: bound to ``kn_id``?, lifecycle gate, catalogue text and trimmed
        input schema, from this index's catalogue state (a toolbox whose schemas cannot be
        built is left out and named in ``skipped_owners``)."""
        items, skipped = described(self.catalog, kn_id, refs)
        return {"items": items, "skipped_owners": sorted(skipped)}


REBUILDABLE = Rebuildable(
    consumer="capability-index",
    open_store=lambda: nullcontext(CapabilityIndex()),
    default_url="http://127.0.0.1:30781",
)
"""The ``bkn.replay`` entry point: what `clctl replay capability-index` rebuilds (bkn_common.framework.rebuildable)."""
