"""Lexical ranking of capabilities: an incremental inverted index with BM25F scoring.

Documents have four fields (name > description > use_rule > param names, see
:data:`DEFAULT_FIELDS`).  Per term, BM25F saturates the weighted field frequencies once::

    tf~(t, d) = sum_f  w_f * tf_f(t, d) / (1 - b_f + b_f * len_f(d) / avglen_f)
    s(t, d)   = idf(t) * (k1 + 1) * tf~ / (k1 + tf~),   idf(t) = ln(1 + (N - df + .5) / (df + .5))

Queries are analysed into *concepts* (:mod:`capability_index.domain.query`): each query
word, with its alternative spellings (sub-word bigrams, glossary translations).  A document
gets, per concept, its best alternative ``weight * mean_t s(t, d)``; the score is the sum
over concepts.  Only documents with score > 0 are returned; ties break by capability_id.

Collection statistics (N, df, summed field lengths) are maintained incrementally on every
upsert/remove and are exact integers, so scores depend only on the current document set,
never on the order of updates.  Saturated term weights are cached per collection version.

Evaluation is concept-at-a-time with MaxScore pruning at the level of alternatives: once an
alternative's upper bound plus that of all remaining concepts is below the current k-th best
score, it can no longer bring a new document into the top ``limit`` and its (long, low-idf)
posting list is only probed for documents that still can.  Results are exact top-k.

Optionally (``embedder=...``, off by default) :meth:`LexicalIndex.search` fuses the lexical
ranking with a dense-embedding ranking over the same candidate set by reciprocal rank
fusion (:mod:`capability_index.domain.fusion`); :meth:`LexicalIndex.search_lexical` is
always the exact BM25F top-k described above.
"""

from __future__ import annotations

import heapq
import logging
import math
from collections.abc import Callable, Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from capability_index.domain.embeddings import Embedder, VectorStore, embedding_text
from capability_index.domain.fusion import FusionConfig, reciprocal_rank_fusion
from capability_index.domain.query import Concept, analyze_query
from capability_index.domain.synonyms import SynonymExpander, default_expander
from capability_index.domain.tokenizer import tokenize

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

# posting value: one (field index, term frequency, field length) triple per field the term
# occurs in; field lengths live in the posting so scoring needs no extra lookup.
_Posting = tuple[tuple[int, int, int], ...]
_SAT_CACHE_LIMIT = 2_000_000  # cached (term, doc) weights before the cache is flushed


def _field_texts(doc: CapabilityDoc) -> tuple[str, str, str, str]:
    return (doc.name, doc.use_rule, doc.description, " ".join(doc.param_names))


class LexicalIndex:
    """Incremental BM25F index over :class:`CapabilityDoc` (not thread-safe for writes).

    With an ``embedder`` the index also keeps one vector per document (embedded lazily,
    in batches, and again only when the document's text changes) and :meth:`search`
    returns the reciprocal rank fusion of the lexical and the dense ranking.
    """

    def __init__(
        self,
        *,
        k1: float = 0.9,
        fields: Mapping[str, FieldConfig] | None = None,
        synonyms: SynonymExpander | bool = True,
        synonym_weight: float = 1.0,
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
        self._tokenize = tokenizer
        self._docs: dict[str, CapabilityDoc] = {}
        self._doc_terms: dict[str, tuple[str, ...]] = {}
        self._doc_lens: dict[str, tuple[int, ...]] = {}
        self._postings: dict[str, dict[str, _Posting]] = {}
        self._len_sums = [0] * len(FIELDS)
        # saturated BM25F term weights per (term, doc), valid for one collection version
        self._version = 0
        self._sat_version = -1
        self._sat_cache: dict[str, dict[str, float]] = {}
        self._sat_cached = 0
        self._fusion = fusion or FusionConfig()
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
        """The weighted concepts a query is scored with (for debugging and tests)."""
        return analyze_query(query, expander=self._expander, synonym_weight=self._synonym_weight)

    def search(
        self,
        query: str,
        *,
        candidates: Collection[str] | None = None,
        limit: int,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        Without an embedder this is :meth:`search_lexical` (BM25F scores); with one, the
        reciprocal rank fusion of the lexical top ``max(limit, depth)`` and the embedding
        top ``depth`` (cosine > ``min_similarity``) of the same candidates, the score
        being the fused RRF score.
        """
        if self._vectors is None:
            return self.search_lexical(query, candidates=candidates, limit=limit)
        if limit <= 0 or not self._docs or not query or query.isspace():
            return []
        cset: AbstractSet[str] | None = None
        if candidates is not None:
            cset = candidates if isinstance(candidates, AbstractSet) else frozenset(candidates)
            if not cset:
                return []
        cfg = self._fusion
        lexical = self.search_lexical(query, candidates=cset, limit=max(limit, cfg.depth))
        try:
            dense = self._vectors.rank(
                query, candidates=cset, limit=cfg.depth, min_similarity=cfg.min_similarity
            )
        except Exception:  # the dense signal is optional: fail open to the lexical ranking
            _log.exception("embedding ranking failed; lexical ranking only")
            return lexical[:limit]
        return reciprocal_rank_fusion(
            [([d for d, _ in lexical], 1.0), ([d for d, _ in dense], cfg.dense_weight)],
            k=cfg.k,
            limit=limit,
        )

    def match_count(self, query: str, *, candidates: Collection[str] | None = None) -> int:
        """How many documents (among ``candidates``) the query matches lexically, i.e. how
        many have a score > 0 — without scoring them (a union of posting lists)."""
        if not self._docs or not query or query.isspace():
            return 0
        matched: set[str] = set()
        for concept in self._plan(self.analyze(query), len(self._docs)):
            for alt in concept.alternatives:
                for _term, _factor, plist in alt.terms:
                    matched.update(plist.keys())
        if candidates is None:
            return len(matched)
        cset = candidates if isinstance(candidates, AbstractSet) else frozenset(candidates)
        return len(matched & cset) if len(matched) < len(cset) else sum(1 for d in cset if d in matched)

    def search_lexical(
        self,
        query: str,
        *,
        candidates: Collection[str] | None = None,
        limit: int,
    ) -> list[tuple[str, float]]:
        """Exact BM25F top ``limit`` (capability_id, score) pairs with score > 0, best first.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        """
        n_docs = len(self._docs)
        if limit <= 0 or n_docs == 0 or not query or query.isspace():
            return []
        cset: AbstractSet[str] | None = None
        if candidates is not None:
            cset = candidates if isinstance(candidates, AbstractSet) else frozenset(candidates)
            if not cset:
                return []
        plan = self._plan(self.analyze(query), n_docs)
        if not plan:
            return []

        k1 = self._k1
        w = self._w
        a = tuple(1.0 - b for b in self._b)
        c = tuple(
            (b * n_docs / total) if total > 0 else 0.0
            for b, total in zip(self._b, self._len_sums, strict=True)
        )

        def sat(posting: _Posting) -> float:
            s = 0.0
            for f, tf, flen in posting:
                s += w[f] * tf / (a[f] + c[f] * flen)
            return s / (k1 + s)

        if self._sat_version != self._version:
            self._sat_cache.clear()
            self._sat_cached = 0
            self._sat_version = self._version
        cache = self._sat_cache

        def sat_map(term: str, plist: dict[str, _Posting]) -> dict[str, float]:
            m = {d: sat(p) for d, p in plist.items()}
            if self._sat_cached + len(m) > _SAT_CACHE_LIMIT:
                cache.clear()
                self._sat_cached = 0
            cache[term] = m
            self._sat_cached += len(m)
            return m

        remaining = [0.0] * (len(plan) + 1)
        for i in range(len(plan) - 1, -1, -1):
            remaining[i] = remaining[i + 1] + plan[i].upper_bound

        acc: dict[str, float] = {}
        processed = 0.0  # summed upper bounds of processed concepts (>= any score so far)
        theta = 0.0  # lower bound of the final k-th best score (valid once len(acc) >= limit)
        live: list[str] = []  # docs in acc that can still reach the top-k
        stale = True
        for i, concept in enumerate(plan):
            rest = remaining[i + 1]
            best: dict[str, float] = {}
            for alt in concept.alternatives:
                pruned = False
                if len(acc) >= limit and alt.upper_bound + rest < processed:
                    if stale:
                        theta = _kth_largest(acc, limit)
                        live = [d for d, sc in acc.items() if sc + remaining[i] >= theta]
                        stale = False
                    # an unseen document gets at most alt.upper_bound + rest < theta: probe only
                    pruned = alt.upper_bound + rest < theta
                part: dict[str, float] = {}
                if pruned:
                    targets = set(live)
                    targets.update(d for d in best if d not in acc)
                    for term, factor, plist in alt.terms:
                        # probe the smaller side: target docs, or the posting list
                        m = cache.get(term)
                        if m is None:
                            raw: Iterable[tuple[str, _Posting]]
                            if len(targets) < len(plist):
                                raw = [(d, plist[d]) for d in targets if d in plist]
                            else:
                                raw = [(d, p) for d, p in plist.items() if d in targets]
                            pairs: Iterable[tuple[str, float]] = [(d, sat(p)) for d, p in raw]
                        elif len(targets) < len(m):
                            pairs = [(d, m[d]) for d in targets if d in m]
                        else:
                            pairs = [(d, v) for d, v in m.items() if d in targets]
                        for d, v in pairs:
                            part[d] = part.get(d, 0.0) + factor * v
                else:
                    for term, factor, plist in alt.terms:
                        m = cache.get(term)
                        if m is None and (cset is None or len(cset) >= len(plist)):
                            m = sat_map(term, plist)  # full list scanned anyway: keep the weights
                        part_get = part.get
                        if m is not None:
                            for d, v in _restrict(m, cset):
                                part[d] = part_get(d, 0.0) + factor * v
                        else:
                            for d, posting in _iter_postings(plist, cset):
                                part[d] = part_get(d, 0.0) + factor * sat(posting)
                if best:
                    for d, v in part.items():
                        if v > best.get(d, 0.0):
                            best[d] = v
                else:
                    best = part
            if best:
                acc_get = acc.get
                for d, v in best.items():
                    acc[d] = acc_get(d, 0.0) + v
                stale = True
            processed += concept.upper_bound
        ranked = heapq.nsmallest(limit, acc.items(), key=lambda kv: (-kv[1], kv[0]))
        return [(d, sc) for d, sc in ranked if sc > 0.0]

    def _plan(self, concepts: list[Concept], n_docs: int) -> list[_PlannedConcept]:
        """Resolve concepts against the index; order by decreasing score upper bound."""
        k1 = self._k1
        postings = self._postings
        plan: list[_PlannedConcept] = []
        for concept in concepts:
            alts: list[_PlannedAlt] = []
            for alt in concept.alternatives:
                scale = alt.weight * (k1 + 1.0) / len(alt.terms)
                terms: list[tuple[str, float, dict[str, _Posting]]] = []
                for term in alt.terms:
                    plist = postings.get(term)
                    if plist:
                        df = len(plist)
                        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
                        terms.append((term, scale * idf, plist))
                if terms:
                    alts.append(_PlannedAlt(sum(t[1] for t in terms), tuple(terms)))
            if alts:
                key = tuple(sorted(t[0] for alt in alts for t in alt.terms))
                alts.sort(key=lambda alt: (-alt.upper_bound, tuple(t[0] for t in alt.terms)))
                plan.append(_PlannedConcept(alts[0].upper_bound, key, tuple(alts)))
        plan.sort(key=lambda p: (-p.upper_bound, p.key))
        return plan


@dataclass(frozen=True)
class _PlannedAlt:
    upper_bound: float
    terms: tuple[
        tuple[str, float, dict[str, _Posting]], ...
    ]  # (term, weight*idf*(k1+1)/n, postings)


@dataclass(frozen=True)
class _PlannedConcept:
    upper_bound: float
    key: tuple[str, ...]
    alternatives: tuple[_PlannedAlt, ...]


def _iter_postings(
    plist: dict[str, _Posting], cset: AbstractSet[str] | None
) -> Iterable[tuple[str, _Posting]]:
    if cset is None:
        return plist.items()
    if len(cset) < len(plist):
        return [(d, plist[d]) for d in cset if d in plist]
    return [(d, p) for d, p in plist.items() if d in cset]


def _restrict(
    weights: dict[str, float], cset: AbstractSet[str] | None
) -> Iterable[tuple[str, float]]:
    if cset is None:
        return weights.items()
    if len(cset) < len(weights):
        return [(d, weights[d]) for d in cset if d in weights]
    return [(d, v) for d, v in weights.items() if d in cset]


def _kth_largest(acc: Mapping[str, float], k: int) -> float:
    return heapq.nlargest(k, acc.values())[-1]
