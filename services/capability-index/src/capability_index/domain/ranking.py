"""Lexical ranking of capabilities: an incremental inverted index with BM25F scoring.

Documents have four fields (name > description > use_rule > param names, see
:data:`DEFAULT_FIELDS`).  Per term, BM25F saturates the weighted field frequencies once::

    tf~(t, d) = sum_f  w_f * tf_f(t, d) / (1 - b_f + b_f * len_f(d) / avglen_f)
    s(t, d)   = idf(t) * (k1 + 1) * tf~ / (k1 + tf~),   idf(t) = ln(1 + (N - df + .5) / (df + .5))

Queries are analysed into *concepts* (:mod:`capability_index.domain.query`): each query
word, with its alternative spellings (sub-word bigrams, glossary translations), weighted
by what kind of word it is (object, operation, period, number).  A document gets, per
concept, its best alternative ``weight * mean_t s(t, d) * coverage(d) ** PHRASE_COVERAGE``
(coverage: the fraction of the alternative's terms the document has); the score is the
sum over concepts.  An alternative's idf is pulled towards that of the word as written
(:data:`CONCEPT_IDF_SHARE`), so a rare translation does not outweigh a common spelling.
Only documents with score > 0 are returned; ties break by capability_id.

Collection statistics (N, df, summed field lengths) are maintained incrementally on every
upsert/remove and are exact integers, so scores depend only on the current document set,
never on the order of updates.  Saturated term weights are cached per collection version.

Scoring is vectorised: every document holds a *slot* (a row of dense numpy arrays), each
term's saturated weights are cached as (slots, weights) arrays per collection version, and a
query adds them into one score vector per alternative, takes the maximum per concept and sums
the concepts.  A candidate restriction is a boolean slot mask (:class:`Candidates`, reusable
across searches).  Results are the exact top-k; a query's analysis is cached.  numpy is
imported by the methods that score, not with the module: building or restoring an index needs
none of it, and a service start is 0.1 s shorter without it (:func:`load_scoring` imports it
ahead of the first search).

Optionally (``embedder=...``, off by default) :meth:`LexicalIndex.search` fuses the lexical
ranking with a dense-embedding ranking over the same candidate set (score fusion by
default, or reciprocal rank fusion: :mod:`capability_index.domain.fusion`);
:meth:`LexicalIndex.search_lexical` is always the exact BM25F top-k described above.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from capability_index.domain.embeddings import Embedder, VectorStore, embedding_text
from capability_index.domain.fusion import (
    SCORE,
    TUNED_FUSION,
    FusionConfig,
    reciprocal_rank_fusion,
    score_fusion,
)
from capability_index.domain.query import KIND_WEIGHTS, Concept, analyze_query
from capability_index.domain.synonyms import SynonymExpander, default_expander
from capability_index.domain.tokenizer import fingerprint, tokenize

if TYPE_CHECKING:
    import numpy as np

_log = logging.getLogger(__name__)

FIELDS: tuple[str, ...] = ("name", "use_rule", "description", "params")


@dataclass(frozen=True)
class CapabilityDoc:
    capability_id: str
    capability_type: str  # "skill" | "function" | "mcp_tool"
    name: str
    description: str
    use_rule: str = ""
    param_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class FieldConfig:
    weight: float
    b: float


DEFAULT_FIELDS: Mapping[str, FieldConfig] = {
    "name": FieldConfig(weight=2.0, b=0.3),
    "use_rule": FieldConfig(weight=0.5, b=0.75),
    "description": FieldConfig(weight=1.0, b=0.75),
    "params": FieldConfig(weight=0.3, b=0.5),
}

# A multi-term alternative (a glossary phrase such as "customer invoice", the bigrams of a
# Chinese word) scores the mean of its terms, times (fraction of its terms -- those that
# occur in the catalogue -- the document has) ** PHRASE_COVERAGE: a document that only says
# "customer" is not half a customer invoice.  Tuned on the DEV half of bench/capability_eval.
PHRASE_COVERAGE = 1.0

# The alternatives of one concept (a query word, its glossary translations) say the same
# thing, so how rare the *spelling* a document happens to use is should not decide how much
# the concept counts: an alternative's idf is pulled towards the idf of the word as written,
# idf_used = idf_alt * (idf_written / idf_alt) ** CONCEPT_IDF_SHARE (0: each alternative
# keeps its own idf, 1: all share the written word's).  Tuned on the DEV half of
# bench/capability_eval.
CONCEPT_IDF_SHARE = 0.5

# posting value: one (field index, term frequency, field length) triple per field the term
# occurs in; field lengths live in the posting so scoring needs no extra lookup.
_Posting = tuple[tuple[int, int, int], ...]
_WEIGHTS_CACHE_LIMIT = 4_000_000  # cached (term, doc) weights before the cache is flushed
_ANALYSIS_CACHE_LIMIT = 4_096  # analysed queries kept


@dataclass(frozen=True)
class Ranking:
    """Top hits (capability_id, score), best first, and how many documents matched at all."""

    hits: list[tuple[str, float]]
    matched: int


class Candidates:
    """A restriction of a search to some capability ids, reusable across searches: the
    index builds its slot mask once per collection version (the ids must not change)."""

    __slots__ = ("ids", "mask", "version")

    def __init__(self, ids: Collection[str]) -> None:
        self.ids = ids
        self.mask: np.ndarray | None = None
        self.version: tuple[int, int] = (0, -1)


CandidateIds = Candidates | Collection[str] | None


def _field_texts(doc: CapabilityDoc) -> tuple[str, str, str, str]:
    return (doc.name, doc.use_rule, doc.description, " ".join(doc.param_names))


class LexicalIndex:
    """Incremental BM25F index over :class:`CapabilityDoc` (not thread-safe for writes).

    With an ``embedder`` the index also keeps one vector per document (embedded lazily,
    in batches, and again only when the document's text changes) and :meth:`search`
    returns the fusion of the lexical and the dense ranking (``fusion``, default
    :data:`~capability_index.domain.fusion.TUNED_FUSION`).
    """

    def __init__(
        self,
        *,
        k1: float = 0.9,
        fields: Mapping[str, FieldConfig] | None = None,
        synonyms: SynonymExpander | bool = True,
        synonym_weight: float = 1.0,
        kind_weights: Mapping[str, float] = KIND_WEIGHTS,
        phrase_coverage: float = PHRASE_COVERAGE,
        concept_idf_share: float = CONCEPT_IDF_SHARE,
        tokenizer: Callable[[str], list[str]] = tokenize,
        embedder: Embedder | None = None,
        fusion: FusionConfig | None = None,
    ) -> None:
        cfg = dict(DEFAULT_FIELDS if fields is None else fields)
        if set(cfg) != set(FIELDS):
            raise ValueError(f"fields must configure exactly {FIELDS}")
        self._k1 = k1
        self._w = tuple(cfg[f].weight for f in FIELDS)
        self._b = tuple(cfg[f].b for f in FIELDS)
        if synonyms is True:
            self._expander: SynonymExpander | None = default_expander()
        elif synonyms is False:
            self._expander = None
        else:
            self._expander = synonyms
        self._synonym_weight = synonym_weight
        self._kind_weights = dict(kind_weights)
        self._phrase_coverage = phrase_coverage
        self._concept_idf_share = concept_idf_share
        self._tokenize = tokenizer
        self._docs: dict[str, CapabilityDoc] = {}
        self._doc_terms: dict[str, tuple[str, ...]] = {}
        self._doc_lens: dict[str, tuple[int, ...]] = {}
        self._postings: dict[str, dict[str, _Posting]] = {}
        self._len_sums = [0] * len(FIELDS)
        # dense slots: a document's row in the score vectors (freed slots are reused)
        self._slot: dict[str, int] = {}
        self._slot_ids: list[str | None] = []
        self._free_slots: list[int] = []
        # saturated BM25F weights per term as (slots, weights), valid for one version
        self._version = 0
        self._weights_version = -1
        self._weights: dict[str, tuple[Any, Any]] = {}
        self._weights_cached = 0
        self._analysed: dict[str, list[Concept]] = {}
        self._fusion = fusion or TUNED_FUSION
        self._vectors: VectorStore | None = (
            None
            if embedder is None
            else VectorStore(embedder, query_cache_size=self._fusion.query_cache)
        )

    @property
    def embedder(self) -> Embedder | None:
        return None if self._vectors is None else self._vectors.embedder

    @property
    def fusion(self) -> FusionConfig:
        return self._fusion

    @fusion.setter
    def fusion(self, config: FusionConfig) -> None:
        self._fusion = config

    @property
    def fused(self) -> bool:
        """Whether :meth:`search` fuses lexical and embedding rankings."""
        return self._vectors is not None

    # ------------------------------------------------------------------ updates
    def upsert(self, doc: CapabilityDoc) -> None:
        """Insert or replace a document (incremental; O(terms of the document))."""
        cid = doc.capability_id
        old = self._docs.get(cid)
        if old is not None:
            if old == doc:
                return
            self.remove(cid)
        per_term: dict[str, list[tuple[int, int, int]]] = {}
        lens: list[int] = []
        for fidx, text in enumerate(_field_texts(doc)):
            tokens = self._tokenize(text) if text else []
            flen = len(tokens)
            lens.append(flen)
            counts: dict[str, int] = {}
            for tok in tokens:
                counts[tok] = counts.get(tok, 0) + 1
            for tok, tf in counts.items():
                per_term.setdefault(tok, []).append((fidx, tf, flen))
        postings = self._postings
        for term, entries in per_term.items():
            plist = postings.get(term)
            if plist is None:
                plist = postings[term] = {}
            plist[cid] = tuple(entries)
        for fidx, flen in enumerate(lens):
            self._len_sums[fidx] += flen
        self._docs[cid] = doc
        self._take_slot(cid)
        self._version += 1
        self._doc_terms[cid] = tuple(per_term)
        self._doc_lens[cid] = tuple(lens)
        if self._vectors is not None:
            self._vectors.upsert(
                cid, embedding_text(doc.name, doc.description, doc.use_rule, doc.param_names)
            )

    def remove(self, capability_id: str) -> bool:
        """Remove a document; returns whether it was present."""
        if self._docs.pop(capability_id, None) is None:
            return False
        self._version += 1
        slot = self._slot.pop(capability_id)
        self._slot_ids[slot] = None
        self._free_slots.append(slot)
        postings = self._postings
        for term in self._doc_terms.pop(capability_id):
            plist = postings[term]
            del plist[capability_id]
            if not plist:
                del postings[term]
        for fidx, flen in enumerate(self._doc_lens.pop(capability_id)):
            self._len_sums[fidx] -= flen
        if self._vectors is not None:
            self._vectors.remove(capability_id)
        return True

    def _take_slot(self, cid: str) -> None:
        if self._free_slots:
            slot = self._free_slots.pop()
            self._slot_ids[slot] = cid
        else:
            slot = len(self._slot_ids)
            self._slot_ids.append(cid)
        self._slot[cid] = slot

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """The documents and their analysed terms as plain data (a checkpoint's part), so a
        restore needs no tokenizing and builds no posting of its own.

        Laid out for a fast restore: ``docs`` (text, field lengths and how many terms, in
        insertion order); ``terms`` (every term once, in the postings' order); ``doc_terms``
        (each document's terms, as positions in ``terms``, one flat list); per term its
        posting list's length (``term_sizes``) and, flat, its documents (positions in
        ``docs``, in the list's order: ``term_docs``) and their postings (positions in
        ``shapes``, the distinct ``[[field, tf, field length], ...]`` values: a few hundred
        for a quarter of a million postings). Caches are left out; ``tokenizer``
        (:func:`fingerprint`) lets :meth:`load_state` refuse terms of another tokenizer."""
        term_at = {term: i for i, term in enumerate(self._postings)}
        doc_at = {cid: i for i, cid in enumerate(self._docs)}
        shapes: dict[_Posting, int] = {}
        term_sizes: list[int] = []
        term_docs: list[int] = []
        term_shapes: list[int] = []
        for plist in self._postings.values():
            term_sizes.append(len(plist))
            for cid, posting in plist.items():
                term_docs.append(doc_at[cid])
                term_shapes.append(shapes.setdefault(posting, len(shapes)))
        return {
            "tokenizer": self._fingerprint(),
            "params": [self._k1, self._w, self._b],
            "docs": [
                [d.capability_id, d.capability_type, d.name, d.description, d.use_rule, d.param_names,
                 self._doc_lens[cid], len(self._doc_terms[cid])]
                for cid, d in self._docs.items()
            ],
            "terms": list(term_at),
            "doc_terms": [term_at[t] for terms in self._doc_terms.values() for t in terms],
            "term_sizes": term_sizes,
            "term_docs": term_docs,
            "term_shapes": term_shapes,
            "shapes": list(shapes),
            "slot_ids": self._slot_ids,
            "free_slots": self._free_slots,
            "version": self._version,
        }

    def load_state(self, data: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned into this empty index, all or nothing.

        Every posting list is one ``dict(zip(...))`` over the flat lists, and documents with
        the same posting share one tuple: no per-posting Python loop (10,000 capabilities are
        about 240,000 postings)."""
        if self._docs:
            raise ValueError("load_state needs an empty index")
        if data["tokenizer"] != self._fingerprint():
            raise ValueError("the checkpoint's terms come from another tokenizer")
        if data["params"] != [self._k1, list(self._w), list(self._b)]:
            raise ValueError("the checkpoint's terms come from other ranking parameters")
        rows = data["docs"]
        cids: list[str] = [row[0] for row in rows]
        terms: list[str] = data["terms"]
        shapes: list[_Posting] = [tuple(map(tuple, shape)) for shape in data["shapes"]]
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
        postings: dict[str, dict[str, _Posting]] = {
            term: dict(zip(islice(docs_of, size), islice(shapes_of, size), strict=True))
            for term, size in zip(terms, sizes, strict=True)
        }
        terms_of = map(terms.__getitem__, flat_terms)
        docs: dict[str, CapabilityDoc] = {}
        doc_terms: dict[str, tuple[str, ...]] = {}
        doc_lens: dict[str, tuple[int, ...]] = {}
        len_sums = [0] * len(FIELDS)
        for cid, kind, name, description, use_rule, params, lens, n_terms in rows:
            docs[cid] = CapabilityDoc(cid, kind, name, description, use_rule, tuple(params))
            doc_lens[cid] = tuple(lens)
            for fidx, flen in enumerate(lens):
                len_sums[fidx] += flen
            doc_terms[cid] = tuple(islice(terms_of, n_terms))
        slot_ids: list[str | None] = list(data["slot_ids"])
        slot = {cid: i for i, cid in enumerate(slot_ids) if cid is not None}
        if set(slot) != set(docs) or len(docs) != len(rows):
            raise ValueError("the checkpoint's index parts do not describe the same documents")
        self._docs, self._doc_terms, self._doc_lens, self._postings = docs, doc_terms, doc_lens, postings
        self._len_sums = len_sums
        self._slot, self._slot_ids = slot, slot_ids
        self._free_slots = [int(i) for i in data["free_slots"]]
        self._version = int(data["version"])
        if self._vectors is not None:
            for doc in docs.values():
                self._vectors.upsert(doc.capability_id, embedding_text(
                    doc.name, doc.description, doc.use_rule, doc.param_names))

    def _fingerprint(self) -> str:
        return fingerprint(self._tokenize)

    def refresh_embeddings(self) -> int:
        """Embed the documents added or changed since the last search (0 without embedder).

        Searches do this on their own; call it to keep that cost out of the first search.
        """
        return 0 if self._vectors is None else self._vectors.flush()

    def __contains__(self, capability_id: object) -> bool:
        return capability_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def get(self, capability_id: str) -> CapabilityDoc | None:
        return self._docs.get(capability_id)

    # ------------------------------------------------------------------ search
    def analyze(self, query: str) -> list[Concept]:
        """The weighted concepts a query is scored with (cached; do not mutate)."""
        concepts = self._analysed.get(query)
        if concepts is None:
            if len(self._analysed) >= _ANALYSIS_CACHE_LIMIT:
                self._analysed.clear()
            concepts = analyze_query(
                query,
                expander=self._expander,
                synonym_weight=self._synonym_weight,
                kind_weights=self._kind_weights,
            )
            self._analysed[query] = concepts
        return concepts

    def search(
        self, query: str, *, candidates: CandidateIds = None, limit: int
    ) -> list[tuple[str, float]]:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first (:meth:`rank`)."""
        return self.rank(query, candidates=candidates, limit=limit).hits

    def rank(self, query: str, *, candidates: CandidateIds = None, limit: int) -> Ranking:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first, and how many
        documents the query matches lexically.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        Without an embedder the hits are :meth:`search_lexical` (BM25F scores); with one, the
        fusion (score or RRF, per ``fusion.method``) of the lexical top ``max(limit, depth)``
        and the embedding top ``depth`` (cosine > ``min_similarity``) of the same
        candidates, the score being the fused score.
        """
        if self._vectors is None:
            return self.rank_lexical(query, candidates=candidates, limit=limit)
        cfg = self._fusion
        lexical = self.rank_lexical(query, candidates=candidates, limit=max(limit, cfg.depth))
        if limit <= 0 or not self._docs or not query or query.isspace():
            return Ranking([], lexical.matched)
        cset: AbstractSet[str] | None = None
        if candidates is not None:
            ids = candidates.ids if isinstance(candidates, Candidates) else candidates
            cset = ids if isinstance(ids, AbstractSet) else frozenset(ids)
            if not cset:
                return Ranking([], 0)
        try:
            dense = self._vectors.rank(
                query, candidates=cset, limit=cfg.depth, min_similarity=cfg.min_similarity
            )
        except Exception:  # the dense signal is optional: fail open to the lexical ranking
            _log.exception("embedding ranking failed; lexical ranking only")
            return Ranking(lexical.hits[:limit], lexical.matched)
        if cfg.method == SCORE:
            fused = score_fusion(lexical.hits, dense, dense_share=cfg.dense_share, limit=limit)
        else:
            fused = reciprocal_rank_fusion(
                [([d for d, _ in lexical.hits], 1.0), ([d for d, _ in dense], cfg.dense_weight)],
                k=cfg.k,
                limit=limit,
            )
        return Ranking(fused, max(lexical.matched, len(fused)))

    def match_count(self, query: str, *, candidates: CandidateIds = None) -> int:
        """How many documents (among ``candidates``) the query matches lexically, i.e. how
        many have a score > 0."""
        return self.rank_lexical(query, candidates=candidates, limit=0).matched

    def search_lexical(
        self,
        query: str,
        *,
        candidates: CandidateIds = None,
        limit: int,
    ) -> list[tuple[str, float]]:
        """Exact BM25F top ``limit`` (capability_id, score) pairs with score > 0, best first.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        """
        return self.rank_lexical(query, candidates=candidates, limit=limit).hits

    def rank_lexical(
        self, query: str, *, candidates: CandidateIds = None, limit: int
    ) -> Ranking:
        """:meth:`search_lexical` and :meth:`match_count` from one scoring pass."""
        import numpy as np

        n_docs = len(self._docs)
        if n_docs == 0 or not query or query.isspace():
            return Ranking([], 0)
        mask = self._mask(candidates)
        if mask is not None and not mask.any():
            return Ranking([], 0)
        plan = self._plan(self.analyze(query), n_docs)
        if not plan:
            return Ranking([], 0)
        size = len(self._slot_ids)
        acc = np.zeros(size)
        for concept in plan:
            best: np.ndarray | None = None
            for alt in concept.alternatives:
                part = np.zeros(size)
                found = np.zeros(size) if alt.length > 1 and self._phrase_coverage else None
                for term, factor in alt.terms:
                    slots, weights = self._term_weights(term)
                    part[slots] += factor * weights
                    if found is not None:
                        found[slots] += 1.0
                if found is not None:
                    part *= (found / alt.length) ** self._phrase_coverage
                best = part if best is None else np.maximum(best, part)
            if best is not None:
                acc += best
        if mask is not None:
            acc[~mask[:size]] = 0.0
        hit_slots = np.flatnonzero(acc > 0.0)
        matched = int(hit_slots.size)
        if limit <= 0:
            return Ranking([], matched)
        if matched > limit:  # keep the top ``limit`` scores and everything tied with the last
            scores = acc[hit_slots]
            kth = np.partition(scores, matched - limit)[matched - limit]
            hit_slots = hit_slots[scores >= kth]
        ids = self._slot_ids
        ranked = sorted(
            ((ids[s], float(acc[s])) for s in hit_slots.tolist()), key=lambda kv: (-kv[1], kv[0])
        )
        return Ranking([(d, sc) for d, sc in ranked[:limit] if d is not None], matched)

    def candidates(self, ids: Collection[str]) -> Candidates:
        """A reusable restriction to ``ids`` (its slot mask is built once per index version)."""
        return Candidates(ids)

    def _mask(self, candidates: CandidateIds) -> np.ndarray | None:
        import numpy as np

        if candidates is None:
            return None
        if not isinstance(candidates, Candidates):
            candidates = Candidates(candidates)
        if candidates.mask is None or candidates.version != (id(self), self._version):
            slot = self._slot
            mask = np.zeros(len(self._slot_ids), dtype=bool)
            mask[[slot[d] for d in candidates.ids if d in slot]] = True
            candidates.mask, candidates.version = mask, (id(self), self._version)
            return mask
        return candidates.mask

    def _term_weights(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Slots and saturated BM25F weights of ``term``'s documents (cached per version)."""
        import numpy as np

        if self._weights_version != self._version:
            self._weights.clear()
            self._weights_cached = 0
            self._weights_version = self._version
        cached = self._weights.get(term)
        if cached is not None:
            return cached
        n_docs = len(self._docs)
        k1, w = self._k1, self._w
        a = tuple(1.0 - b for b in self._b)
        c = tuple(
            (b * n_docs / total) if total > 0 else 0.0
            for b, total in zip(self._b, self._len_sums, strict=True)
        )
        plist = self._postings[term]
        slot = self._slot
        slots = np.fromiter((slot[d] for d in plist), dtype=np.int64, count=len(plist))
        sats = np.empty(len(plist))
        for i, posting in enumerate(plist.values()):
            s = 0.0
            for f, tf, flen in posting:
                s += w[f] * tf / (a[f] + c[f] * flen)
            sats[i] = s / (k1 + s)
        if self._weights_cached + len(plist) > _WEIGHTS_CACHE_LIMIT:
            self._weights.clear()
            self._weights_cached = 0
        self._weights[term] = (slots, sats)
        self._weights_cached += len(plist)
        return slots, sats

    def _plan(self, concepts: list[Concept], n_docs: int) -> list[_PlannedConcept]:
        """Resolve concepts against the index; order by decreasing score upper bound."""
        plan: list[_PlannedConcept] = []
        for concept in concepts:
            alts = self._plan_alternatives(concept, n_docs)
            if alts:
                key = tuple(sorted(t[0] for alt in alts for t in alt.terms))
                alts.sort(key=lambda alt: (-alt.upper_bound, tuple(t[0] for t in alt.terms)))
                plan.append(_PlannedConcept(alts[0].upper_bound, key, tuple(alts)))
        plan.sort(key=lambda p: (-p.upper_bound, p.key))
        return plan

    def _plan_alternatives(self, concept: Concept, n_docs: int) -> list[_PlannedAlt]:
        """The concept's alternatives that occur in the catalogue, with per-term factors
        ``weight * idf * (k1 + 1) / n`` (idf shared with the written word, see
        :data:`CONCEPT_IDF_SHARE`).  The first alternative is the word as written; a concept
        made only of a glossary group's spellings refers to the group's first one."""
        resolved = [
            (alt, [(t, self._idf(t, n_docs)) for t in alt.terms if t in self._postings])
            for alt in concept.alternatives
        ]
        written = resolved[0][1] if resolved else []
        written_idf = _mean_idf(written) if written else None
        share = self._concept_idf_share
        alts: list[_PlannedAlt] = []
        for alt, terms in resolved:
            if not terms:
                continue
            scale = alt.weight * (self._k1 + 1.0) / len(alt.terms)
            if written_idf is not None and share:
                scale *= (written_idf / _mean_idf(terms)) ** share
            factors = tuple((term, scale * idf) for term, idf in terms)
            alts.append(_PlannedAlt(sum(f for _, f in factors), factors, len(factors)))
        return alts

    def _idf(self, term: str, n_docs: int) -> float:
        df = len(self._postings[term])
        return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def load_scoring() -> None:
    """Import what scoring needs (numpy) now rather than in the first search."""
    import numpy  # noqa: F401


def _mean_idf(terms: list[tuple[str, float]]) -> float:
    return sum(idf for _, idf in terms) / len(terms)


@dataclass(frozen=True)
class _PlannedAlt:
    upper_bound: float
    terms: tuple[tuple[str, float], ...]  # (term, weight*idf*(k1+1)/n)
    length: int  # terms of the alternative that occur in the catalogue


@dataclass(frozen=True)
class _PlannedConcept:
    upper_bound: float
    key: tuple[str, ...]
    alternatives: tuple[_PlannedAlt, ...]
