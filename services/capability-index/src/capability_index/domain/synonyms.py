"""Query-side synonym / translation expansion driven by a phrase glossary.

A query phrase found in a glossary group pulls in the index terms of every other phrase of
that group (typically its translation), which the ranker then scores at a reduced weight.
Chinese phrases match as substrings of CJK runs; English phrases match as contiguous
(stemmed) word sequences.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence

from capability_index.domain.tokenizer import segments, tokenize

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BREAK = "\x00"


class SynonymExpander:
    """Expands a query with the terms of glossary phrases equivalent to phrases in it."""

    def __init__(
        self,
        groups: Iterable[Sequence[str]],
        *,
        tokenizer: Callable[[str], list[str]] = tokenize,
    ) -> None:
        self._groups = tuple(tuple(g) for g in groups)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self._ready = False
        self._group_terms: list[frozenset[str]] = []
        self._zh: dict[str, list[tuple[str, int]]] = {}
        self._en: dict[str, list[tuple[tuple[str, ...], int]]] = {}

    def _build(self) -> None:
        with self._lock:
            if self._ready:
                return
            for gid, group in enumerate(self._groups):
                terms: set[str] = set()
                for phrase in group:
                    terms.update(self._tokenizer(phrase))
                    if _CJK_RE.search(phrase):
                        for run in segments(phrase):
                            if isinstance(run, str):
                                self._zh.setdefault(run[0], []).append((run, gid))
                    else:
                        flat = tuple(w for seg in segments(phrase) if isinstance(seg, list) for w in seg)
                        if flat:
                            self._en.setdefault(flat[0], []).append((flat, gid))
                self._group_terms.append(frozenset(terms))
            self._ready = True

    def matched_groups(self, text: str) -> list[int]:
        """Ids of glossary groups with at least one phrase occurring in *text* (sorted)."""
        if not self._ready:
            self._build()
        found: set[int] = set()
        flat: list[str] = []
        for seg in segments(text):
            if isinstance(seg, str):
                flat.append(_BREAK)
                for i, ch in enumerate(seg):
                    for phrase, gid in self._zh.get(ch, ()):
                        if seg.startswith(phrase, i):
                            found.add(gid)
            else:
                flat.extend(seg)
        n = len(flat)
        for i, word in enumerate(flat):
            for phrase_words, gid in self._en.get(word, ()):
                k = len(phrase_words)
                if k == 1 or (i + k <= n and tuple(flat[i : i + k]) == phrase_words):
                    found.add(gid)
        return sorted(found)

    def expand(self, text: str) -> set[str]:
        """Index terms of all glossary phrases equivalent to a phrase occurring in *text*."""
        out: set[str] = set()
        for gid in self.matched_groups(text):
            out |= self._group_terms[gid]
        return out


_default_lock = threading.Lock()
_default: SynonymExpander | None = None


def default_expander() -> SynonymExpander:
    """Process-wide expander over the built-in :data:`GLOSSARY` (built lazily)."""
    global _default
    with _default_lock:
        if _default is None:
            from capability_index.domain.glossary import GLOSSARY

            _default = SynonymExpander(GLOSSARY)
        return _default
