"""BM25F scoring of analysed queries over a :class:`~capability_index.domain.postings.PostingStore`.

Documents have four fields (name > description > use_rule > param names, see
:data:`DEFAULT_FIELDS`).  Per term, BM25F saturates the weighted field frequencies once::

    tf~(t, d) = sum_f  w_f * tf_f(t, d) / (1 - b_f + b_f * len_f(d) / avglen_f)
    s(t, d)   = idf(t) * (k1 + 1) * tf~ / (k1 + tf~),   idf(t) = ln(1 + (N - df + .5) / (df + .5))

A document gets, per query concept (:mod:`capability_index.domain.query`), its best
alternative ``weight * mean_t s(t, d) * coverage(d) ** PHRASE_COVERAGE`` (coverage: the
fraction of the alternative's terms the document has); the score is the sum over concepts.
An alternative's idf is pulled towards that of the word as written
(:data:`CONCEPT_IDF_SHARE`), so a rare translation does not outweigh a common spelling.
Only documents with score > 0 are returned; ties break by capability_id.

Scoring is vectorised: each term's saturated weights are cached as (slots, weights) arrays
per collection version, and a query adds them into one score vector per alternative, takes
the maximum per concept and sums the concepts.  A candidate restriction is a boolean slot
mask (:class:`Candidates`, reusable across searches).  Results are the exact top-k.  numpy
is imported by the methods that score, not with the module: building or restoring an index
needs none of it, and a service start is 0.1 s shorter without it (:func:`load_scoring`
imports it ahead of the first search).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from capability_index.domain.documents import FIELDS
from capability_index.domain.postings import PostingStore
from capability_index.domain.query import Concept

if TYPE_CHECKING:
    import numpy as np


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

_WEIGHTS_CACHE_LIMIT = 4_000_000  # cached (term, doc) weights before the cache is flushed


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


def field_parameters(fields: Mapping[str, FieldConfig] | None) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Field weights and length normalisations in :data:`FIELDS` order."""
    cfg = dict(DEFAULT_FIELDS if fields is None else fields)
    if set(cfg) != set(FIELDS):
        raise ValueError(f"fields must configure exactly {FIELDS}")
    return tuple(cfg[f].weight for f in FIELDS), tuple(cfg[f].b for f in FIELDS)


class Bm25fScorer:
    """Scores concepts against one store; caches are valid for one store version."""

    def __init__(self, store: PostingStore, *, k1: float, w: tuple[float, ...], b: tuple[float, ...],
                 phrase_coverage: float, concept_idf_share: float) -> None:
        self._store = store
        self._k1, self._w, self._b = k1, w, b
        self._phrase_coverage = phrase_coverage
        self._concept_idf_share = concept_idf_share
        self._weights_version = -1
        self._weights: dict[str, tuple[Any, Any]] = {}
        self._weights_cached = 0

    def rank(self, concepts: list[Concept], candidates: CandidateIds, limit: int) -> Ranking:
        """The exact top ``limit`` of the documents with score > 0, and how many there are."""
        import numpy as np

        store = self._store
        n_docs = len(store.docs)
        if n_docs == 0:
            return Ranking([], 0)
        mask = self._mask(candidates)
        if mask is not None and not mask.any():
            return Ranking([], 0)
        plan = self._plan(concepts, n_docs)
        if not plan:
            return Ranking([], 0)
        size = len(store.slot_ids)
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
        ids = store.slot_ids
        ranked = sorted(
            ((ids[s], float(acc[s])) for s in hit_slots.tolist()), key=lambda kv: (-kv[1], kv[0])
        )
        return Ranking([(d, sc) for d, sc in ranked[:limit] if d is not None], matched)

    def _mask(self, candidates: CandidateIds) -> np.ndarray | None:
        import numpy as np

        if candidates is None:
            return None
        if not isinstance(candidates, Candidates):
            candidates = Candidates(candidates)
        version = (id(self), self._store.version)
        if candidates.mask is None or candidates.version != version:
            slot = self._store.slot
            mask = np.zeros(len(self._store.slot_ids), dtype=bool)
            mask[[slot[d] for d in candidates.ids if d in slot]] = True
            candidates.mask, candidates.version = mask, version
            return mask
        return candidates.mask

    def _term_weights(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Slots and saturated BM25F weights of ``term``'s documents (cached per version)."""
        import numpy as np

        store = self._store
        if self._weights_version != store.version:
            self._weights.clear()
            self._weights_cached = 0
            self._weights_version = store.version
        cached = self._weights.get(term)
        if cached is not None:
            return cached
        n_docs = len(store.docs)
        k1, w = self._k1, self._w
        a = tuple(1.0 - b for b in self._b)
        c = tuple(
            (b * n_docs / total) if total > 0 else 0.0
            for b, total in zip(self._b, store.len_sums, strict=True)
        )
        plist = store.postings[term]
        slot = store.slot
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
        postings = self._store.postings
        resolved = [
            (alt, [(t, self._idf(t, n_docs)) for t in alt.terms if t in postings])
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
        df = len(self._store.postings[term])
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
