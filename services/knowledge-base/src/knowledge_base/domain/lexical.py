"""BM25 over weighted fields (title and aliases count most), OR semantics over query tokens."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

FIELD_WEIGHTS = {"title": 3.0, "aliases": 3.0, "tags": 2.0, "description": 2.0, "path": 1.5,
                 "content": 1.0}
K1, B = 1.2, 0.75


class Bm25Index:
    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self._lengths: list[float] = []
        self._fields: list[dict[str, set[str]]] = []
        self.ids: list[str] = []

    def add(self, doc_id: str, fields: dict[str, list[str]]) -> None:
        slot = len(self.ids)
        self.ids.append(doc_id)
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

    def search(self, query_tokens: Iterable[str], limit: int) -> list[tuple[str, float, list[str]]]:
        """(doc id, score, matched fields), best first."""
        if not self.ids:
            return []
        avg = sum(self._lengths) / len(self._lengths) or 1.0
        scores: dict[int, float] = defaultdict(float)
        matched_tokens: dict[int, set[str]] = defaultdict(set)
        for tok, qtf in Counter(query_tokens).items():
            postings = self._postings.get(tok)
            if not postings:
                continue
            idf = self.idf(tok)
            for slot, tf in postings:
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self._lengths[slot] / avg))
                scores[slot] += idf * norm * (1 + 0.3 * (qtf - 1))
                matched_tokens[slot].add(tok)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], self.ids[kv[0]]))[:limit]
        out = []
        for slot, score in ranked:
            fields = [name for name, toks in self._fields[slot].items() if toks & matched_tokens[slot]]
            out.append((self.ids[slot], score, fields))
        return out
