"""BM25 over weighted fields (title and aliases count most), OR semantics over query tokens.

A search costs a few array operations per query token: ``freeze`` (run once, when the index
is built) turns the postings into flat arrays of slots, BM25 term weights (length
normalisation included) and bit masks of the fields a token occurs in, each token a run of
them, and drops the per-document Python structures (on a 10,000-file base they were about a
million objects the garbage collector had to walk; arrays per token were 380,000 more on the
generated 20,000-file base).
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

FIELD_WEIGHTS = {"title": 3.0, "aliases": 3.0, "tags": 2.0, "description": 2.0, "path": 1.5,
                 "content": 1.0}
FIELD_BITS = {name: 1 << i for i, name in enumerate(FIELD_WEIGHTS)}
K1, B = 1.2, 0.75


class _Postings:
    """One token's postings while documents are added: parallel typed arrays (machine numbers,
    not a Python object per posting: on a 20,000-file base those were millions of small objects
    whose freed memory the process kept)."""

    __slots__ = ("masks", "slots", "tfs")

    def __init__(self) -> None:
        self.slots = array("q")
        self.tfs = array("d")
        self.masks = array("B")


@dataclass(frozen=True)
class _Frozen:
    """Every token's postings in three flat arrays, a token's run at ``offsets[i]:offsets[i + 1]``
    (``where[token]`` = i): a handful of arrays for the whole base, not three per token."""

    where: dict[str, int]
    offsets: np.ndarray
    slots: np.ndarray
    weights: np.ndarray
    """BM25 term weight per posting (length normalisation included; idf apart)."""
    bits: np.ndarray
    idfs: np.ndarray


class Bm25Index:
    def __init__(self) -> None:
        self._postings: dict[str, _Postings] = defaultdict(_Postings)
        self._lengths: list[float] = []
        self.ids: list[str] = []
        self._frozen: _Frozen | None = None

    def add(self, doc_id: str, fields: dict[str, list[str]]) -> None:
        if self._frozen is not None:
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
        frozen = self.freeze()
        found = frozen.where.get(token)
        return float(frozen.idfs[found]) if found is not None else 0.0

    def coverage(self, query_tokens: Iterable[str]) -> float:
        """The share of the distinct query tokens that occur in some document (1.0 for none)."""
        where = self.freeze().where
        distinct = set(query_tokens)
        return sum(1 for tok in distinct if tok in where) / len(distinct) if distinct else 1.0

    def freeze(self) -> _Frozen:
        """Postings as flat arrays with their BM25 weights, built once; adding afterwards is refused."""
        if self._frozen is None:
            lengths = np.asarray(self._lengths, dtype=np.float64)
            avg = float(lengths.mean()) if len(lengths) else 1.0
            norms = K1 * (1 - B + B * lengths / (avg or 1.0))
            postings = self._postings
            sizes = np.fromiter((len(p.slots) for p in postings.values()), dtype=np.int64, count=len(postings))
            offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            slots = np.empty(int(offsets[-1]), dtype=np.int64)
            tfs = np.empty(len(slots), dtype=np.float64)
            bits = np.empty(len(slots), dtype=np.uint8)
            for i, p in enumerate(postings.values()):
                run = slice(int(offsets[i]), int(offsets[i + 1]))
                slots[run] = np.frombuffer(p.slots, dtype=np.int64)
                tfs[run] = np.frombuffer(p.tfs, dtype=np.float64)
                bits[run] = np.frombuffer(p.masks, dtype=np.uint8)
            n = len(self.ids)
            self._frozen = _Frozen(
                where={tok: i for i, tok in enumerate(postings)}, offsets=offsets, slots=slots,
                weights=tfs * (K1 + 1) / (tfs + norms[slots]), bits=bits,
                idfs=np.log(1 + (n - sizes + 0.5) / (sizes + 0.5)))
            self._postings = defaultdict(_Postings)
            self._lengths = []
        return self._frozen

    def search(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, list[str]]]:
        """(doc id, score, matched fields), best first (ties in insertion order)."""
        return [(doc, score, field_names(bits)) for doc, score, bits in self.search_bits(query_tokens, limit)]

    def search_bits(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, int]]:
        """As :meth:`search` with the matched fields as bits (:func:`field_names` reads them)."""
        if not self.ids:
            return []
        frozen = self.freeze()
        scores = np.zeros(len(self.ids), dtype=np.float64)
        fields = np.zeros(len(self.ids), dtype=np.uint8)
        for tok, qtf in Counter(query_tokens).items():
            i = frozen.where.get(tok)
            if i is None:
                continue
            run = slice(int(frozen.offsets[i]), int(frozen.offsets[i + 1]))
            slots = frozen.slots[run]  # a token's slots are distinct: fancy indexing is exact
            scores[slots] += float(frozen.idfs[i]) * frozen.weights[run] * (1 + 0.3 * (qtf - 1))
            fields[slots] |= frozen.bits[run]
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
