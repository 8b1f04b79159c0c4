"""``search_schema``: rank a network's concepts (object, relation and action types, metrics)
against a free-text query, CJK-aware, and return schema only — never instances.

Tokens: ASCII words (split on ``_`` and case), and for every run of CJK characters its
single characters and its character bigrams (so ``采购订单`` matches ``订单`` and ``采购``
without a dictionary). Ranking is BM25 over one bag of tokens per concept, with the name
(and id) counted three times, descriptions and property names once; a concept whose name
contains the whole query gets a bonus. Concepts scoring zero are dropped.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bkn_common.contracts import events as ev

ConceptKind = Literal["object_type", "relation_type", "action_type", "metric"]
KIND_KEYS: dict[ConceptKind, str] = {
    "object_type": "object_types",
    "relation_type": "relation_types",
    "action_type": "action_types",
    "metric": "metrics",
}
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_RUN_RE = re.compile(rf"[{_CJK}]+|[A-Za-z0-9]+")
_CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_K1, _B = 1.2, 0.75
_NAME_WEIGHT = 3
_NAME_BONUS = 2.0


def tokenize(text: str) -> list[str]:
    """Lower-cased ASCII words plus CJK unigrams and bigrams."""
    out: list[str] = []
    for run in _RUN_RE.findall(text or ""):
        if run[0].isascii():
            words = _CAMEL_RE.findall(run) or [run]
            out.extend(w.lower() for w in words)
            if len(words) > 1:
                out.append(run.lower())
        else:
            out.extend(run)
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    return out


@dataclass(frozen=True)
class Concept:
    kind: ConceptKind
    body: dict[str, Any]
    name: str
    groups: frozenset[str]
    tokens: Counter[str]


def _bag(name_texts: Iterable[str], other_texts: Iterable[str]) -> Counter[str]:
    bag: Counter[str] = Counter()
    for text in name_texts:
        for token in tokenize(text):
            bag[token] += _NAME_WEIGHT
    for text in other_texts:
        bag.update(tokenize(text))
    return bag


def build_concepts(
    object_types: Iterable[ev.ObjectTypeUpserted],
    relation_types: Iterable[ev.RelationTypeUpserted],
    action_types: Iterable[ev.ActionTypeUpserted],
) -> list[Concept]:
    """One concept per type and per metric (a logic property of kind ``metric``)."""
    concepts: list[Concept] = []
    for ot in object_types:
        props = [t for p in ot.properties for t in (p.name, p.display_name, p.description)]
        body = {
            "id": ot.id, "name": ot.name, "description": ot.description,
            "primary_keys": list(ot.primary_keys), "display_key": ot.display_key,
            "concept_groups": list(ot.concept_groups),
            "properties": [
                {"name": p.name, "display_name": p.display_name, "type": p.type}
                for p in ot.properties
            ],
        }  # fmt: skip
        bag = _bag([ot.id, ot.name], [ot.description, *props])
        concepts.append(Concept("object_type", body, ot.name, frozenset(ot.concept_groups), bag))
        for lp in ot.logic_properties:
            if lp.kind != "metric":
                continue
            metric = {
                "object_type_id": ot.id, "name": lp.name, "display_name": lp.display_name,
                "description": lp.description, "parameters": list(lp.parameters),
            }  # fmt: skip
            bag = _bag([lp.name, lp.display_name], [lp.description, ot.name])
            label = lp.display_name or lp.name
            concepts.append(Concept("metric", metric, label, frozenset(ot.concept_groups), bag))
    for rt in relation_types:
        body = {
            "id": rt.id, "name": rt.name, "description": rt.description,
            "source_object_type_id": rt.source_object_type_id,
            "target_object_type_id": rt.target_object_type_id,
            "concept_groups": list(rt.concept_groups),
        }  # fmt: skip
        bag = _bag([rt.id, rt.name], [rt.description])
        concepts.append(Concept("relation_type", body, rt.name, frozenset(rt.concept_groups), bag))
    for at in action_types:
        body = {
            "id": at.id, "name": at.name, "description": at.description,
            "object_type_id": at.object_type_id, "mode": at.mode,
            "concept_groups": list(at.concept_groups),
        }  # fmt: skip
        bag = _bag([at.id, at.name], [at.description])
        concepts.append(Concept("action_type", body, at.name, frozenset(at.concept_groups), bag))
    return concepts


def rank(
    concepts: Sequence[Concept],
    query: str,
    *,
    kinds: frozenset[ConceptKind],
    concept_groups: Sequence[str] | None,
    limit: int,
) -> tuple[list[tuple[Concept, float]], int]:
    """The best ``limit`` concepts of ``kinds`` (in ``concept_groups`` when given), and how
    many matched in all."""
    wanted = set(concept_groups or ())
    pool = [
        c for c in concepts
        if c.kind in kinds and (not wanted or c.groups & wanted)
    ]  # fmt: skip
    terms = list(dict.fromkeys(tokenize(query)))
    if not pool or not terms:
        return [], 0
    lengths = [sum(c.tokens.values()) for c in pool]
    average = sum(lengths) / len(lengths) or 1.0
    frequency = {t: sum(1 for c in pool if t in c.tokens) for t in terms}
    needle = query.strip().casefold()
    scored: list[tuple[Concept, float]] = []
    for concept, length in zip(pool, lengths, strict=True):
        score = 0.0
        for term in terms:
            tf = concept.tokens.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(pool) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / average))
        if score > 0 and needle and needle in concept.name.casefold():
            score += _NAME_BONUS
        if score > 0:
            scored.append((concept, score))
    scored.sort(key=lambda pair: -pair[1])
    return scored[:limit], len(scored)
