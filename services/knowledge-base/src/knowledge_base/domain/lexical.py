"""BM25 over weighted fields (title and aliases count most), OR semantics over query tokens."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

FIELD_WEIGHTS = {"title": 3.0, "aliases": 3.0, "tags": 2.0, "description": 2.0, "path": 1.5,
                 "content": 1.0}
K1, B = 1.2, 0.75


class Bm25Index:
    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self._lengths: list[float] = []
        self._fields: list[dict[str, set[str]]] = []
        self.ids: list[str] = []
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
        self._norms: np.ndarray = np.zeros(0)

    def add(self, doc_id: str, fields: dict[str, list[str]]) -> None:
        slot = len(self.ids)
        self.ids.append(doc_id)
        self._arrays = None
        weighted: dict[str, float] = defaultdict(float)
        present: dict[str, set[str]] = {}
        for name, toks in fields.items():
            weight = FIELD_WEIGHTS[name]
            for tok in toks:
                weighted[tok] += weight
            present[name] = set(toks)
        self._fields.append(present)
        self._lengths.append(sum(weighted.values()))
        for tok, tf in weighted.items():
            self._postings[tok].append((slot, tf))

    def __len__(self) -> int:
        return len(self.ids)

    def idf(self, token: str) -> float:
        df = len(self._postings.get(token, ()))
        n = len(self.ids)
        return math.log(1 + (n - df + 0.5) / (df + 0.5)) if df else 0.0

    def _frozen(self) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """Postings as (slots, weighted tf) arrays and length-normalisation per slot, built once."""
        if self._arrays is None or len(self._norms) != len(self.ids):
            lengths = np.asarray(self._lengths, dtype=np.float64)
            avg = float(lengths.mean()) if len(lengths) else 1.0
            self._norms = K1 * (1 - B + B * lengths / (avg or 1.0))
            self._arrays = {
                tok: (np.fromiter((s for s, _ in p), dtype=np.int64, count=len(p)),
                      np.fromiter((t for _, t in p), dtype=np.float64, count=len(p)))
                for tok, p in self._postings.items()
            }
        return self._arrays, self._norms

    def search(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, list[str]]]:
        """(doc id, score, matched fields), best first (ties in insertion order)."""
        if not self.ids:
            return []
        arrays, norms = self._frozen()
        scores = np.zeros(len(self.ids), dtype=np.float64)
        matched: set[str] = set()
        for tok, qtf in Counter(query_tokens).items():
            posting = arrays.get(tok)
            if posting is None:
                continue
            slots, tf = posting  # a token's slots are distinct: plain fancy-index addition is exact
            scores[slots] += self.idf(tok) * (tf * (K1 + 1) / (tf + norms[slots])) * (1 + 0.3 * (qtf - 1))
            matched.add(tok)
        hits = np.flatnonzero(scores > 0)
        top = hits[np.argsort(-scores[hits], kind="stable")][:limit]
        out = []
        for slot in top.tolist():
            fields = [name for name, toks in self._fields[slot].items() if toks & matched]
            out.append((self.ids[slot], float(scores[slot]), fields))
        return out
