"""The checkpoint layout of the lexical index's document storage: a
:class:`~capability_index.domain.postings.PostingStore` as plain data and back, so a
restore needs no tokenizing and builds no posting of its own.

Laid out for a fast restore: ``docs`` (text, field lengths and how many terms, in insertion
order); ``terms`` (every term once, in the postings' order); ``doc_terms`` (each document's
terms, as positions in ``terms``, one flat list); per term its posting list's length
(``term_sizes``) and, flat, its documents (positions in ``docs``, in the list's order:
``term_docs``) and their postings (positions in ``shapes``, the distinct
``[[field, tf, field length], ...]`` values: a few hundred for a quarter of a million
postings). ``tokenizer`` (a fingerprint) and ``params`` (the ranking parameters) let a
restore refuse terms analysed another way.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from capability_index.domain.documents import FIELDS, CapabilityDoc
from capability_index.domain.postings import Posting, PostingStore


def store_state(store: PostingStore, tokenizer: str, params: list[Any]) -> dict[str, Any]:
    """``store`` as plain data (see the module docstring); caches are left out."""
    term_at = {term: i for i, term in enumerate(store.postings)}
    doc_at = {cid: i for i, cid in enumerate(store.docs)}
    shapes: dict[Posting, int] = {}
    term_sizes: list[int] = []
    term_docs: list[int] = []
    term_shapes: list[int] = []
    for plist in store.postings.values():
        term_sizes.append(len(plist))
        for cid, posting in plist.items():
            term_docs.append(doc_at[cid])
            term_shapes.append(shapes.setdefault(posting, len(shapes)))
    return {
        "tokenizer": tokenizer,
        "params": params,
        "docs": [
            [d.capability_id, d.capability_type, d.name, d.description, d.use_rule, d.param_names,
             store.doc_lens[cid], len(store.doc_terms[cid])]
            for cid, d in store.docs.items()
        ],
        "terms": list(term_at),
        "doc_terms": [term_at[t] for terms in store.doc_terms.values() for t in terms],
        "term_sizes": term_sizes,
        "term_docs": term_docs,
        "term_shapes": term_shapes,
        "shapes": list(shapes),
        "slot_ids": store.slot_ids,
        "free_slots": store.free_slots,
        "version": store.version,
    }


def restore_store(data: dict[str, Any], tokenizer: str, params: list[Any]) -> PostingStore:
    """A new store from what :func:`store_state` returned; raises (and builds nothing) when
    the data is of another tokenizer or other parameters, or does not hold together.

    Every posting list is one ``dict(zip(...))`` over the flat lists, and documents with the
    same posting share one tuple: no per-posting Python loop (10,000 capabilities are about
    240,000 postings)."""
    if data["tokenizer"] != tokenizer:
        raise ValueError("the checkpoint's terms come from another tokenizer")
    if data["params"] != params:
        raise ValueError("the checkpoint's terms come from other ranking parameters")
    rows = data["docs"]
    cids: list[str] = [row[0] for row in rows]
    terms: list[str] = data["terms"]
    shapes: list[Posting] = [tuple(map(tuple, shape)) for shape in data["shapes"]]
    sizes: list[int] = data["term_sizes"]
    flat_docs: list[int] = data["term_docs"]
    flat_shapes: list[int] = data["term_shapes"]
    flat_terms: list[int] = data["doc_terms"]
    if (sum(sizes) != len(flat_docs) or len(flat_shapes) != len(flat_docs)
            or len(sizes) != len(terms) or sum(row[7] for row in rows) != len(flat_terms)
            or not all(sizes)):
        raise ValueError("the checkpoint's index parts do not describe the same documents")
    docs_of = map(cids.__getitem__, flat_docs)
    shapes_of = map(shapes.__getitem__, flat_shapes)
    postings: dict[str, dict[str, Posting]] = {
        term: dict(zip(islice(docs_of, size), islice(shapes_of, size), strict=True))
        for term, size in zip(terms, sizes, strict=True)
    }
    terms_of = map(terms.__getitem__, flat_terms)
    store = PostingStore()
    len_sums = [0] * len(FIELDS)
    for cid, kind, name, description, use_rule, params_, lens, n_terms in rows:
        store.docs[cid] = CapabilityDoc(cid, kind, name, description, use_rule, tuple(params_))
        store.doc_lens[cid] = tuple(lens)
        for fidx, flen in enumerate(lens):
            len_sums[fidx] += flen
        store.doc_terms[cid] = tuple(islice(terms_of, n_terms))
    slot_ids: list[str | None] = list(data["slot_ids"])
    slot = {cid: i for i, cid in enumerate(slot_ids) if cid is not None}
    if set(slot) != set(store.docs) or len(store.docs) != len(rows):
        raise ValueError("the checkpoint's index parts do not describe the same documents")
    store.postings, store.len_sums = postings, len_sums
    store.slot, store.slot_ids = slot, slot_ids
    store.free_slots = [int(i) for i in data["free_slots"]]
    store.version = int(data["version"])
    return store
