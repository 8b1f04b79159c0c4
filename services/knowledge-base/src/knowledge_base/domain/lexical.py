"""BM25 over weighted fields (title and aliases count most), OR semantics over query tokens.

A search costs a few array operations per query token: ``freeze`` (run once, when the index
is built) turns each token's postings into arrays of slots, BM25 term weights (length
normalisation included) and a bit mask of the fields the token occurs in, and drops the
per-document Python structures (on a 10,000-file base they were about a million objects the
garbage collector had to walk).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

FIELD_WEIGHTS = {"title": 3.0, "aliases": 3.0, "tags": 2.0, "description": 2.0, "path": 1.5,
                 "content": 1.0}
FIELD_BITS = {name: 1 << i for i, name in enumerate(FIELD_WEIGHTS)}
K1, B = 1.2, 0.75


class _Postings:
    """One token's postings while documents are added: parallel lists, few objects."""

    __slots__ = ("masks", "slots", "tfs")

    def __init__(self) -> None:
        self.slots: list[int] = []
        self.tfs: list[float] = []
        self.masks: list[int] = []


class Bm25Index:
    def __init__(self) -> None:
        self._postings: dict[str, _Postings] = defaultdict(_Postings)
        self._lengths: list[float] = []
        self.ids: list[str] = []
        # token -> (slots, BM25 term weight per slot, field bits per slot, idf), built by freeze
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]] | None = None

    def add(self, doc_id: str, fields: dict[str, list[str]]) -> None:
        if self._arrays is not None:
            raise RuntimeError("the index is frozen: build a new one")
        slot = len(self.ids)
        self.ids.append(doc_id)
        weighted: dict[str, float] = defaultdict(float)
        bits: dict[str, int] = defaultdict(int)
        for name, toks in fields.items():
            weight, bit = FIELD_WEIGHTS[name], FIELD_BITS[name]
            for tok in toks:
                weighted[tok] += weight
                bits[tok] |= bit
        self._lengths.append(sum(weighted.values()))
        for tok, tf in weighted.items():
            posting = self._postings[tok]
            posting.slots.append(slot)
            posting.tfs.append(tf)
            posting.masks.append(bits[tok])

    def __len__(self) -> int:
        return len(self.ids)

    def idf(self, token: str) -> float:
        arrays = self.freeze()
        found = arrays.get(token)
        return found[3] if found is not None else 0.0

    def coverage(self, query_tokens: Iterable[str]) -> float:
        """The share of the distinct query tokens that occur in some document (1.0 for none)."""
        arrays = self.freeze()
        distinct = set(query_tokens)
        return sum(1 for tok in distinct if tok in arrays) / len(distinct) if distinct else 1.0

    def freeze(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
        """Postings as arrays with their BM25 weights, built once; adding afterwards is refused."""
        if self._arrays is None:
            lengths = np.asarray(self._lengths, dtype=np.float64)
            avg = float(lengths.mean()) if len(lengths) else 1.0
            norms = K1 * (1 - B + B * lengths / (avg or 1.0))
            n = len(self.ids)
            arrays = {}
            for tok, p in self._postings.items():
                slots = np.asarray(p.slots, dtype=np.int64)
                tf = np.asarray(p.tfs, dtype=np.float64)
                df = len(p.slots)
                arrays[tok] = (slots, tf * (K1 + 1) / (tf + norms[slots]),
                               np.asarray(p.masks, dtype=np.uint8),
                               math.log(1 + (n - df + 0.5) / (df + 0.5)))
            self._arrays = arrays
            self._postings = defaultdict(_Postings)
            self._lengths = []
        return self._arrays

    def search(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, list[str]]]:
        """(doc id, score, matched fields), best first (ties in insertion order)."""
        return [(doc, score, field_names(bits)) for doc, score, bits in self.search_bits(query_tokens, limit)]

    def search_bits(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, int]]:
        """As :meth:`search` with the matched fields as bits (:func:`field_names` reads them)."""
        if not self.ids:
            return []
        arrays = self.freeze()
        scores = np.zeros(len(self.ids), dtype=np.float64)
        fields = np.zeros(len(self.ids), dtype=np.uint8)
        for tok, qtf in Counter(query_tokens).items():
            posting = arrays.get(tok)
            if posting is None:
                continue
            slots, weight, bits, idf = posting  # a token's slots are distinct: fancy indexing is exact
            scores[slots] += idf * weight * (1 + 0.3 * (qtf - 1))
            fields[slots] |= bits
        top = _top(scores, limit)
        ids = self.ids
        return list(zip([ids[slot] for slot in top.tolist()], scores[top].tolist(),
                        fields[top].tolist(), strict=True))


def _top(scores: np.ndarray, limit: int) -> np.ndarray:
    """Slots of the ``limit`` best positive scores, best first, ties by slot: the first
    ``limit`` of a stable sort, without sorting every matching document."""
    hits = np.flatnonzero(scores > 0)
    if len(hits) > limit:
        values = scores[hits]
        kth = np.partition(values, len(values) - limit)[len(values) - limit]
        above = hits[values > kth]
        tied = hits[values == kth][: limit - len(above)]
        hits = np.sort(np.concatenate((above, tied)))
    return hits[np.argsort(-scores[hits], kind="stable")][:limit]


_NAMES_BY_BITS = [[name for name, bit in FIELD_BITS.items() if bits & bit] for bits in range(1 << len(FIELD_BITS))]


def field_names(bits: int) -> list[str]:
    """The fields named by ``bits`` (FIELD_BITS), in FIELD_WEIGHTS order."""
    return list(_NAMES_BY_BITS[bits])
