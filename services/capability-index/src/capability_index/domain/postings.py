"""Document storage of the lexical index: the documents, their postings per term, the
collection statistics BM25F needs, and each document's dense *slot*.

Statistics (N, df, summed field lengths) are exact integers kept up to date on every
upsert and remove, so what is scored depends only on the current document set, never on
the order of updates. A slot is a document's row in the scorer's arrays; freed slots are
reused. ``version`` changes with every change of the document set (the scorer's caches are
valid for one version).
"""

from __future__ import annotations

from collections.abc import Callable

from capability_index.domain.documents import FIELDS, CapabilityDoc

Posting = tuple[tuple[int, int, int], ...]
"""A term's posting in one document: one (field index, term frequency, field length) triple
per field the term occurs in; field lengths live in the posting so scoring needs no lookup."""


class PostingStore:
    """An inverted index over :class:`CapabilityDoc` (not thread-safe for writes).

    The attributes are read by the scorer and the checkpoint layout
    (:mod:`capability_index.domain.index_checkpoint`); only :meth:`upsert` and
    :meth:`remove` change them.
    """

    def __init__(self) -> None:
        self.docs: dict[str, CapabilityDoc] = {}
        self.doc_terms: dict[str, tuple[str, ...]] = {}
        self.doc_lens: dict[str, tuple[int, ...]] = {}
        self.postings: dict[str, dict[str, Posting]] = {}
        self.len_sums = [0] * len(FIELDS)
        self.slot: dict[str, int] = {}
        self.slot_ids: list[str | None] = []
        self.free_slots: list[int] = []
        self.version = 0

    def upsert(self, doc: CapabilityDoc, tokenize: Callable[[str], list[str]]) -> bool:
        """Insert or replace a document (O(terms of the document)); False when the same
        document is already stored."""
        cid = doc.capability_id
        old = self.docs.get(cid)
        if old is not None:
            if old == doc:
                return False
            self.remove(cid)
        per_term: dict[str, list[tuple[int, int, int]]] = {}
        lens: list[int] = []
        for fidx, text in enumerate(doc.field_texts()):
            tokens = tokenize(text) if text else []
            flen = len(tokens)
            lens.append(flen)
            counts: dict[str, int] = {}
            for tok in tokens:
                counts[tok] = counts.get(tok, 0) + 1
            for tok, tf in counts.items():
                per_term.setdefault(tok, []).append((fidx, tf, flen))
        postings = self.postings
        for term, entries in per_term.items():
            plist = postings.get(term)
            if plist is None:
                plist = postings[term] = {}
            plist[cid] = tuple(entries)
        for fidx, flen in enumerate(lens):
            self.len_sums[fidx] += flen
        self.docs[cid] = doc
        self._take_slot(cid)
        self.version += 1
        self.doc_terms[cid] = tuple(per_term)
        self.doc_lens[cid] = tuple(lens)
        return True

    def remove(self, capability_id: str) -> bool:
        """Remove a document; returns whether it was present."""
        if self.docs.pop(capability_id, None) is None:
            return False
        self.version += 1
        slot = self.slot.pop(capability_id)
        self.slot_ids[slot] = None
        self.free_slots.append(slot)
        postings = self.postings
        for term in self.doc_terms.pop(capability_id):
            plist = postings[term]
            del plist[capability_id]
            if not plist:
                del postings[term]
        for fidx, flen in enumerate(self.doc_lens.pop(capability_id)):
            self.len_sums[fidx] -= flen
        return True

    def _take_slot(self, cid: str) -> None:
        if self.free_slots:
            slot = self.free_slots.pop()
            self.slot_ids[slot] = cid
        else:
            slot = len(self.slot_ids)
            self.slot_ids.append(cid)
        self.slot[cid] = slot
