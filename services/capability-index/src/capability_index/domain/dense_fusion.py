"""The lexical ranking fused with the dense (embedding) ranking of the same candidates.

The fusion method and its parameters are :class:`~capability_index.domain.fusion.FusionConfig`
(score fusion by default, or reciprocal rank fusion). The dense signal is optional: when
the embedder fails, the answer is the lexical ranking.
"""

from __future__ import annotations

import logging
from collections.abc import Set as AbstractSet

from capability_index.domain.bm25f import CandidateIds, Candidates, Ranking
from capability_index.domain.embeddings import VectorStore
from capability_index.domain.fusion import SCORE, FusionConfig, reciprocal_rank_fusion, score_fusion

_log = logging.getLogger(__name__)


def candidate_set(candidates: CandidateIds) -> AbstractSet[str] | None:
    """The ids a restriction allows, as a set (None: no restriction)."""
    if candidates is None:
        return None
    ids = candidates.ids if isinstance(candidates, Candidates) else candidates
    return ids if isinstance(ids, AbstractSet) else frozenset(ids)


def fuse_with_dense(
    lexical: Ranking, vectors: VectorStore, query: str, *, candidates: AbstractSet[str] | None,
    limit: int, config: FusionConfig,
) -> Ranking:
    """Fuse ``lexical`` (the lexical top ``max(limit, depth)``) with the dense top ``depth``
    (cosine > ``min_similarity``) of ``candidates``; the hits' scores are the fused scores."""
    try:
        dense = vectors.rank(
            query, candidates=candidates, limit=config.depth, min_similarity=config.min_similarity
        )
    except Exception:  # the dense signal is optional: fail open to the lexical ranking
        _log.exception("embedding ranking failed; lexical ranking only")
        return Ranking(lexical.hits[:limit], lexical.matched)
    if config.method == SCORE:
        fused = score_fusion(lexical.hits, dense, dense_share=config.dense_share, limit=limit)
    else:
        fused = reciprocal_rank_fusion(
            [([d for d, _ in lexical.hits], 1.0), ([d for d, _ in dense], config.dense_weight)],
            k=config.k,
            limit=limit,
        )
    return Ranking(fused, max(lexical.matched, len(fused)))
