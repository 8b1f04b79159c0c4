"""Query-side synonym / translation expansion driven by a phrase glossary.

A query phrase found in a glossary group offers every other phrase of that group (typically
its translation) as an alternative wording, which the ranker scores at a reduced weight.
Chinese phrases match as substrings of CJK runs; English phrases match as contiguous
(stemmed) word sequences.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from capability_index.domain.tokenizer import cjk_words, primary_terms, segments

_CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BREAK = "\x00"

TERM = "term"
OPERATION = "operation"
PERIOD = "period"


@dataclass(frozen=True)
class SynonymMatch:
    """A glossary phrase found in a query: its group, its size and its alternatives."""

    group: int
    phrase: str
    size: int  # number of primary terms the matched phrase spans (>= 1)
    alternatives: tuple[tuple[str, ...], ...]  # primary terms of the group's other phrases
    span: tuple[int, int, int]  # (space, start, end): see :func:`phrase_positions`
    kind: str = TERM  # the group's kind: TERM, OPERATION or PERIOD (see glossary.py)


class SynonymExpander:
    """Finds glossary phrases in a query and offers the group's other phrases as alternatives.

    Overlapping matches are resolved longest-first: a phrase strictly inside a longer
    matched phrase (``订单`` inside ``采购订单``) is dropped.  ``kinds`` (one per group,
    default all :data:`TERM`) is passed through to the matches.
    """

    def __init__(
        self,
        groups: Iterable[Sequence[str]],
        *,
        kinds: Sequence[str] | None = None,
        primary: Callable[[str], list[str]] = primary_terms,
    ) -> None:
        self._groups = tuple(tuple(g) for g in groups)
        self._kinds = tuple(kinds) if kinds is not None else (TERM,) * len(self._groups)
        if len(self._kinds) != len(self._groups):
            raise ValueError("kinds must give one kind per group")
        self._primary = primary
        self._lock = threading.Lock()
        self._ready = False
        self._phrase_terms: list[list[tuple[str, ...]]] = []
        self._zh: dict[str, list[tuple[str, int, int]]] = {}
        self._en: dict[str, list[tuple[tuple[str, ...], int, int]]] = {}

    def _build(self) -> None:
        with self._lock:
            if self._ready:
                return
            for gid, group in enumerate(self._groups):
                self._phrase_terms.append([tuple(self._primary(p)) for p in group])
                for pid, phrase in enumerate(group):
                    if _CJK_RE.search(phrase):
                        for run in segments(phrase):
                            if isinstance(run, str):
                                self._zh.setdefault(run[0], []).append((run, gid, pid))
                    else:
                        flat = tuple(
                            w for seg in segments(phrase) if isinstance(seg, list) for w in seg
                        )
                        if flat:
                            self._en.setdefault(flat[0], []).append((flat, gid, pid))
            self._ready = True

    def _raw_matches(self, text: str) -> list[tuple[tuple[int, int, int], int, int]]:
        """((space, start, end), group, phrase) for every phrase occurrence.

        Space 0 is the sequence of ASCII words (one break per CJK run); space i > 0 is the
        characters of the i-th segment (a CJK run).  Single-character Chinese phrases only
        match where jieba also segments that character as a word of its own.
        """
        found: list[tuple[tuple[int, int, int], int, int]] = []
        flat: list[str] = []
        for sidx, seg in enumerate(segments(text)):
            if isinstance(seg, str):
                flat.append(_BREAK)
                singles: set[int] | None = None
                for i, ch in enumerate(seg):
                    for phrase, gid, pid in self._zh.get(ch, ()):
                        if not seg.startswith(phrase, i):
                            continue
                        if len(phrase) == 1:
                            if singles is None:
                                singles = {s for w, s, e in cjk_words(seg) if e - s == 1}
                            if i not in singles:
                                continue
                        found.append(((sidx + 1, i, i + len(phrase)), gid, pid))
            else:
                flat.extend(seg)
        n = len(flat)
        for i, word in enumerate(flat):
            for words, gid, pid in self._en.get(word, ()):
                k = len(words)
                if i + k <= n and tuple(flat[i : i + k]) == words:
                    found.append(((0, i, i + k), gid, pid))
        return found

    def matches(self, text: str) -> list[SynonymMatch]:
        """Glossary matches in *text* after longest-match suppression, one per group."""
        if not self._ready:
            self._build()
        raw = self._raw_matches(text)
        spans = {span for span, _, _ in raw}
        kept: dict[int, SynonymMatch] = {}
        for span, gid, pid in sorted(raw):
            space, start, end = span
            if any(
                o[0] == space and o[1] <= start and end <= o[2] and o[2] - o[1] > end - start
                for o in spans
            ):
                continue
            terms = self._phrase_terms[gid]
            own = terms[pid]
            alts = tuple(dict.fromkeys(t for t in terms if t and t != own))
            size = max(1, len(own))
            prev = kept.get(gid)
            if prev is None or size > prev.size:
                kept[gid] = SynonymMatch(
                    gid, self._groups[gid][pid], size, alts, span, self._kinds[gid]
                )
        return [kept[g] for g in sorted(kept)]


_default_lock = threading.Lock()
_default: SynonymExpander | None = None


def default_expander() -> SynonymExpander:
    """Process-wide expander over the built-in :data:`GLOSSARY` (built lazily)."""
    global _default
    with _default_lock:
        if _default is None:
            from capability_index.domain.glossary import GLOSSARY, GROUP_KINDS

            _default = SynonymExpander(GLOSSARY, kinds=GROUP_KINDS)
        return _default
