"""Query analysis: turn query text into weighted *concepts*.

A concept is one unit of meaning of the query (a Chinese word, an English word, an
identifier, a glossary phrase).  It has alternative spellings, each a weighted tuple of index
terms; the ranker credits a document with the best alternative of each concept (max), and
the mean over the terms of a multi-term alternative.  So one Chinese word does not count
several times (word + sub-words + bigrams), and a translation found in the glossary is an
*alternative* of the words it translates rather than extra evidence: a document that says
the same thing in two languages is not scored twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import pairwise

from capability_index.domain.synonyms import OPERATION, PERIOD, TERM, SynonymExpander, SynonymMatch
from capability_index.domain.tokenizer import (
    ZH_STOPWORDS,
    ascii_parts,
    cjk_runs,
    cjk_words,
    informative_bigram,
    keep_ascii,
    stem,
)

WORD = 1.0  # a query word as written
WORD_BIGRAMS = 0.8  # all character bigrams of a >2-char Chinese word (different segmentation)
BOUNDARY_BIGRAM = 0.3  # bigram straddling two Chinese words (or carrying a 1-char word)
FULL_IDENTIFIER = 0.5  # snake_case/camelCase identifier as a whole

NUMBER = "number"  # kind of a purely numeric query word (an id, a quantity, a date part)
# How much a query word counts, by kind (see glossary.py): a capability is identified by the
# business object it acts on; the operation only separates capabilities of one object, and
# periods and numbers are arguments of the call.  So a capability matching the object but
# not the operation must outrank one matching only the operation.  Tuned on the DEV half
# of bench/capability_eval.
KIND_WEIGHTS: Mapping[str, float] = {TERM: 1.0, OPERATION: 0.7, PERIOD: 0.5, NUMBER: 0.5}

_Span = tuple[int, int, int]  # (space, start, end) — same coordinates as SynonymMatch.span


@dataclass(frozen=True)
class Alternative:
    weight: float
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Concept:
    alternatives: tuple[Alternative, ...]

    @property
    def terms(self) -> set[str]:
        return {t for alt in self.alternatives for t in alt.terms}


@dataclass
class _Unit:
    span: _Span
    alternatives: list[Alternative]
    mergeable: bool  # a word (not a bigram / identifier helper)
    kinds: set[str] = field(default_factory=set)  # kinds of the glossary groups it matched


def _bigrams(word: str) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            word[i : i + 2]
            for i in range(len(word) - 1)
            if informative_bigram(word[i], word[i + 1])
        )
    )


def _cjk_units(space: int, run: str, out: list[_Unit]) -> None:
    if len(run) == 1:
        if run not in ZH_STOPWORDS:
            out.append(_Unit((space, 0, 1), [Alternative(WORD, (run,))], True))
        return
    words = cjk_words(run)
    for word, start, end in words:
        if end - start < 2 or word in ZH_STOPWORDS:
            continue
        alts = [Alternative(WORD, (word,))]
        grams = _bigrams(word) if end - start > 2 else ()
        if grams:
            alts.append(Alternative(WORD_BIGRAMS, grams))
        out.append(_Unit((space, start, end), alts, True))
    for (_w1, _s1, e1), _next in pairwise(words):
        a, b = run[e1 - 1], run[e1]
        if informative_bigram(a, b):
            out.append(
                _Unit((space, e1 - 1, e1 + 1), [Alternative(BOUNDARY_BIGRAM, (a + b,))], False)
            )


def _ascii_units(start: int, ident: str, out: list[_Unit]) -> int:
    parts = ascii_parts(ident)
    for i, part in enumerate(parts):
        if keep_ascii(part):
            kinds = {NUMBER} if part.isdigit() else set()
            out.append(
                _Unit(
                    (0, start + i, start + i + 1), [Alternative(WORD, (stem(part),))], True, kinds
                )
            )
    if len(parts) > 1:
        out.append(
            _Unit(
                (0, start, start + len(parts)),
                [Alternative(FULL_IDENTIFIER, ("_".join(parts),))],
                False,
            )
        )
    return start + len(parts)


def _inside(inner: _Span, outer: _Span) -> bool:
    return inner[0] == outer[0] and outer[1] <= inner[1] and inner[2] <= outer[2]


def _merge_synonyms(units: list[_Unit], matches: list[SynonymMatch], weight: float) -> list[_Unit]:
    """Fold each glossary match into the word units it covers (longest spans first)."""
    merged: dict[_Span, _Unit] = {}
    consumed: set[int] = set()
    extra: list[_Unit] = []
    for match in sorted(matches, key=lambda m: (-(m.span[2] - m.span[1]), m.span, m.group)):
        covered = [
            i
            for i, u in enumerate(units)
            if u.mergeable and i not in consumed and _inside(u.span, match.span)
        ]
        target = merged.get(match.span)
        if target is None and covered:
            if len(covered) == 1:
                target = units[covered[0]]
            else:
                terms = tuple(t for i in covered for t in units[i].alternatives[0].terms)
                target = _Unit(match.span, [Alternative(WORD * len(covered), terms)], True)
            consumed.update(covered)
            merged[match.span] = target
        size = max(1, len(covered)) if target is None else _unit_size(target)
        alts = [Alternative(weight * size, terms) for terms in match.alternatives]
        if target is None:
            if alts:
                extra.append(_Unit(match.span, alts, False, {match.kind}))
        else:
            target.alternatives.extend(alts)
            target.kinds.add(match.kind)
    kept = [u for i, u in enumerate(units) if i not in consumed]
    return kept + [u for u in merged.values() if u not in kept] + extra


def _unit_size(unit: _Unit) -> int:
    return max(1, round(unit.alternatives[0].weight / WORD))


def _kind_weight(unit: _Unit, weights: Mapping[str, float]) -> float:
    """A word that matched an object term anywhere in the glossary counts fully; otherwise
    the weight of the kind it matched (the smallest, if several)."""
    if not unit.kinds or TERM in unit.kinds:
        return weights.get(TERM, 1.0)
    return min(weights.get(kind, 1.0) for kind in unit.kinds)


def _weighted(unit: _Unit, weights: Mapping[str, float]) -> tuple[Alternative, ...]:
    factor = _kind_weight(unit, weights)
    alts = unit.alternatives
    if factor != 1.0:
        alts = [Alternative(alt.weight * factor, alt.terms) for alt in alts]
    return tuple(dict.fromkeys(alts))


def analyze_query(
    text: str,
    *,
    expander: SynonymExpander | None = None,
    synonym_weight: float = 1.0,
    kind_weights: Mapping[str, float] = KIND_WEIGHTS,
) -> list[Concept]:
    """Concepts of *text*, deduplicated, in a deterministic order."""
    units: list[_Unit] = []
    word_pos = 0
    for space, (is_cjk, run) in enumerate(cjk_runs(text), start=1):
        if is_cjk:
            _cjk_units(space, run, units)
            word_pos += 1  # the glossary matcher puts one break per CJK run
        else:
            word_pos = _ascii_units(word_pos, run, units)
    if expander is not None and units:
        units = _merge_synonyms(units, expander.matches(text), synonym_weight)
    concepts = (Concept(_weighted(u, kind_weights)) for u in units)
    return list(dict.fromkeys(c for c in concepts if c.alternatives))


class QueryAnalyser:
    """:func:`analyze_query` with one configuration, its answers cached (a bounded cache,
    flushed when full); callers must not mutate the concepts it returns."""

    _CACHE_LIMIT = 4_096  # analysed queries kept

    def __init__(self, *, expander: SynonymExpander | None, synonym_weight: float,
                 kind_weights: Mapping[str, float]) -> None:
        self._expander = expander
        self._synonym_weight = synonym_weight
        self._kind_weights = dict(kind_weights)
        self._analysed: dict[str, list[Concept]] = {}

    def __call__(self, query: str) -> list[Concept]:
        concepts = self._analysed.get(query)
        if concepts is None:
            if len(self._analysed) >= self._CACHE_LIMIT:
                self._analysed.clear()
            concepts = analyze_query(query, expander=self._expander,
                                     synonym_weight=self._synonym_weight,
                                     kind_weights=self._kind_weights)
            self._analysed[query] = concepts
        return concepts
