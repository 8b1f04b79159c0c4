"""Weighted reciprocal rank fusion (k = 60) of ranked lanes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import itemgetter

RRF_K = 60


def fuse(lanes: Mapping[str, Sequence[str]], weights: Mapping[str, float]) -> list[tuple[str, float]]:
    """(doc id, fused score) best first; ties by id. A lane absent from ``weights`` counts 0."""
    scores: dict[str, float] = {}
    for lane, ranked in lanes.items():
        weight = weights.get(lane, 0.0)
        if weight <= 0:
            continue
        for rank, doc_id in enumerate(ranked, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (RRF_K + rank)
    fused = sorted(scores.items())  # by id, then by score: a stable sort keeps ties by id
    fused.sort(key=itemgetter(1), reverse=True)
    return fused


def fuse_new(fused: Sequence[tuple[str, float]], ranked: Sequence[str],
             weight: float) -> list[tuple[str, float]]:
    """``fused`` (a :func:`fuse` result) with one more lane whose documents are none of its
    own: equal to fusing every lane again, without adding up the other lanes a second time."""
    if weight <= 0 or not ranked:
        return list(fused)
    added = [(doc_id, weight / (RRF_K + rank)) for rank, doc_id in enumerate(ranked, start=1)]
    return sorted([*fused, *added], key=_best_then_id)


def _best_then_id(item: tuple[str, float]) -> tuple[float, str]:
    return -item[1], item[0]
