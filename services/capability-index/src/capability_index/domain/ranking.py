"""Lexical ranking of capabilities: an incremental inverted index with BM25F scoring.

Scoring (BM25F, one saturation per term over the weighted field frequencies)::

    tf~(t, d) = sum_f  w_f * tf_f(t, d) / (1 - b_f + b_f * len_f(d) / avglen_f)
    score(d)  = sum_t  qw_t * idf(t) * (k1 + 1) * tf~ / (k1 + tf~)
    idf(t)    = ln(1 + (N - df_t + 0.5) / (df_t + 0.5))

``qw_t`` is 1 for query terms and ``synonym_weight`` for glossary expansions.  Collection
statistics (N, df, summed field lengths) are maintained incrementally, and scores are exact
for the current document set (they do not depend on the order of updates).

Query evaluation is term-at-a-time with MaxScore pruning: terms are processed by decreasing
upper bound; once the summed upper bound of the remaining terms drops below the current
k-th best score, no unseen document can reach the top ``limit`` and the remaining
(low-idf, long) posting lists are only probed for documents that still can.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Collection, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from capability_index.domain.synonyms import SynonymExpander, default_expander
from capability_index.domain.tokenizer import tokenize

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
    "name": FieldConfig(weight=3.0, b=0.3),
    "use_rule": FieldConfig(weight=1.5, b=0.75),
    "description": FieldConfig(weight=1.5, b=0.75),
    "params": FieldConfig(weight=0.6, b=0.5),
}

# posting value: one (field index, term frequency, field length) triple per field the term
# occurs in; field lengths live in the posting so scoring needs no extra lookup.
_Posting = tuple[tuple[int, int, int], ...]


def _field_texts(doc: CapabilityDoc) -> tuple[str, str, str, str]:
    return (doc.name, doc.use_rule, doc.description, " ".join(doc.param_names))


class LexicalIndex:
    """Incremental BM25F index over :class:`CapabilityDoc` (not thread-safe for writes)."""

    def __init__(
        self,
        *,
        k1: float = 1.2,
        fields: Mapping[str, FieldConfig] | None = None,
        synonyms: SynonymExpander | bool = True,
        synonym_weight: float = 0.4,
        tokenizer: Callable[[str], list[str]] = tokenize,
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
        self._doc_terms[cid] = tuple(per_term)
        self._doc_lens[cid] = tuple(lens)

    def remove(self, capability_id: str) -> bool:
        """Remove a document; returns whether it was present."""
        if self._docs.pop(capability_id, None) is None:
            return False
        postings = self._postings
        for term in self._doc_terms.pop(capability_id):
            plist = postings[term]
            del plist[capability_id]
            if not plist:
                del postings[term]
        for fidx, flen in enumerate(self._doc_lens.pop(capability_id)):
            self._len_sums[fidx] -= flen
        return True

    def __contains__(self, capability_id: object) -> bool:
        return capability_id in self._docs

    def __len__(self) -> int:
        return len(self._docs)

    def get(self, capability_id: str) -> CapabilityDoc | None:
        return self._docs.get(capability_id)

    # ------------------------------------------------------------------ search
    def query_terms(self, query: str) -> dict[str, float]:
        """Weighted query terms (original terms 1.0, glossary expansions lower)."""
        terms = dict.fromkeys(self._tokenize(query), 1.0)
        if self._expander is not None and terms:
            for term in sorted(self._expander.expand(query)):
                if term not in terms:
                    terms[term] = self._synonym_weight
        return terms

    def search(
        self,
        query: str,
        *,
        candidates: Collection[str] | None = None,
        limit: int,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first.

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

        k1 = self._k1
        plan: list[tuple[float, str, dict[str, _Posting]]] = []
        for term, qw in self.query_terms(query).items():
            plist = self._postings.get(term)
            if not plist:
                continue
            df = len(plist)
            idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
            plan.append((qw * idf * (k1 + 1.0), term, plist))
        if not plan:
            return []
        plan.sort(key=lambda p: (-p[0], p[1]))

        w = self._w
        a = tuple(1.0 - b for b in self._b)
        c = tuple(
            (b * n_docs / total) if total > 0 else 0.0
            for b, total in zip(self._b, self._len_sums, strict=True)
        )
        remaining = [0.0] * (len(plan) + 1)
        for i in range(len(plan) - 1, -1, -1):
            remaining[i] = remaining[i + 1] + plan[i][0]

        acc: dict[str, float] = {}
        acc_get = acc.get
        i = 0
        while i < len(plan):
            if i > 0 and len(acc) >= limit and remaining[i] < _kth_largest(acc, limit):
                break
            ub, _term, plist = plan[i]
            if cset is None:
                items: Collection[tuple[str, _Posting]] = plist.items()
            elif len(cset) < len(plist):
                items = [(d, plist[d]) for d in cset if d in plist]
            else:
                items = [(d, p) for d, p in plist.items() if d in cset]
            for d, posting in items:
                s = 0.0
                for f, tf, flen in posting:
                    s += w[f] * tf / (a[f] + c[f] * flen)
                acc[d] = acc_get(d, 0.0) + ub * s / (k1 + s)
            i += 1

        if i < len(plan):
            # MaxScore phase: only documents that can still reach the top-k matter.
            theta = _kth_largest(acc, limit)
            live = [d for d, sc in acc.items() if sc + remaining[i] >= theta]
            for ub, _term, plist in plan[i:]:
                for d in live:
                    posting = plist.get(d)
                    if posting is None:
                        continue
                    s = 0.0
                    for f, tf, flen in posting:
                        s += w[f] * tf / (a[f] + c[f] * flen)
                    acc[d] += ub * s / (k1 + s)
            scored: Collection[tuple[str, float]] = [(d, acc[d]) for d in live]
        else:
            scored = acc.items()
        top = heapq.nsmallest(limit, scored, key=lambda kv: (-kv[1], kv[0]))
        return [(d, sc) for d, sc in top if sc > 0.0]


def _kth_largest(acc: Mapping[str, float], k: int) -> float:
    return heapq.nlargest(k, acc.values())[-1]
