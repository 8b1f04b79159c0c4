"""Lexical ranking of capabilities: the index the capability projection searches.

:class:`LexicalIndex` puts together four parts, each in its own module:

- document storage, the postings and exact collection statistics, kept up to date on every
  upsert and remove (:mod:`capability_index.domain.postings`);
- BM25F scoring of the query's *concepts* (:mod:`capability_index.domain.query` analyses a
  query; :mod:`capability_index.domain.bm25f` scores it: formula, tuned constants, caches);
- the checkpoint layout of the storage (:mod:`capability_index.domain.index_checkpoint`);
- optionally (``embedder=...``, off by default) one vector per document
  (:mod:`capability_index.domain.embeddings`) and the fusion of the lexical and the dense
  ranking (:mod:`capability_index.domain.dense_fusion`, :mod:`capability_index.domain.fusion`).

:meth:`LexicalIndex.search_lexical` is always the exact BM25F top-k;
:meth:`LexicalIndex.search` is the fused ranking when the index has an embedder.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from capability_index.domain.bm25f import (
    CONCEPT_IDF_SHARE,
    PHRASE_COVERAGE,
    Bm25fScorer,
    CandidateIds,
    Candidates,
    FieldConfig,
    Ranking,
    field_parameters,
)
from capability_index.domain.dense_fusion import candidate_set, fuse_with_dense
from capability_index.domain.documents import CapabilityDoc
from capability_index.domain.embeddings import Embedder, VectorStore, embedding_text
from capability_index.domain.fusion import TUNED_FUSION, FusionConfig
from capability_index.domain.index_checkpoint import restore_store, store_state
from capability_index.domain.postings import PostingStore
from capability_index.domain.query import KIND_WEIGHTS, Concept, QueryAnalyser
from capability_index.domain.synonyms import SynonymExpander, default_expander
from capability_index.domain.tokenizer import fingerprint, tokenize


class LexicalIndex:
    """Incremental BM25F index over :class:`CapabilityDoc` (not thread-safe for writes).

    With an ``embedder`` the index also keeps one vector per document (embedded lazily,
    in batches, and again only when the document's text changes) and :meth:`search`
    returns the fusion of the lexical and the dense ranking (``fusion``, default
    :data:`~capability_index.domain.fusion.TUNED_FUSION`).
    """

    def __init__(
        self,
        *,
        k1: float = 0.9,
        fields: Mapping[str, FieldConfig] | None = None,
        synonyms: SynonymExpander | bool = True,
        synonym_weight: float = 1.0,
        kind_weights: Mapping[str, float] = KIND_WEIGHTS,
        phrase_coverage: float = PHRASE_COVERAGE,
        concept_idf_share: float = CONCEPT_IDF_SHARE,
        tokenizer: Callable[[str], list[str]] = tokenize,
        embedder: Embedder | None = None,
        fusion: FusionConfig | None = None,
    ) -> None:
        self._k1 = k1
        self._w, self._b = field_parameters(fields)
        expander = default_expander() if synonyms is True else None if synonyms is False else synonyms
        self.analyze: Callable[[str], list[Concept]] = QueryAnalyser(
            expander=expander, synonym_weight=synonym_weight, kind_weights=kind_weights)
        """The weighted concepts a query is scored with (cached; do not mutate)."""
        self._scoring = {"phrase_coverage": phrase_coverage, "concept_idf_share": concept_idf_share}
        self._tokenize = tokenizer
        self._store, self._scorer = self._attach(PostingStore())
        self.fusion: FusionConfig = fusion or TUNED_FUSION
        self._vectors: VectorStore | None = (
            None if embedder is None else VectorStore(embedder, query_cache_size=self.fusion.query_cache)
        )

    def _attach(self, store: PostingStore) -> tuple[PostingStore, Bm25fScorer]:
        return store, Bm25fScorer(store, k1=self._k1, w=self._w, b=self._b, **self._scoring)

    @property
    def embedder(self) -> Embedder | None:
        return None if self._vectors is None else self._vectors.embedder

    @property
    def fused(self) -> bool:
        """Whether :meth:`search` fuses lexical and embedding rankings."""
        return self._vectors is not None

    # ------------------------------------------------------------------ documents
    def upsert(self, doc: CapabilityDoc) -> None:
        """Insert or replace a document (incremental; O(terms of the document))."""
        old = self._store.docs.get(doc.capability_id)
        if old == doc:
            return
        if old is not None:
            self.remove(doc.capability_id)
        self._store.upsert(doc, self._tokenize)
        if self._vectors is not None:
            self._vectors.upsert(doc.capability_id, _embedding_text(doc))

    def remove(self, capability_id: str) -> bool:
        """Remove a document; returns whether it was present."""
        removed = self._store.remove(capability_id)
        if removed and self._vectors is not None:
            self._vectors.remove(capability_id)
        return removed

    def __contains__(self, capability_id: object) -> bool:
        return capability_id in self._store.docs

    def __len__(self) -> int:
        return len(self._store.docs)

    def get(self, capability_id: str) -> CapabilityDoc | None:
        return self._store.docs.get(capability_id)

    def refresh_embeddings(self) -> int:
        """Embed the documents added or changed since the last search (0 without embedder).

        Searches do this on their own; call it to keep that cost out of the first search.
        """
        return 0 if self._vectors is None else self._vectors.flush()

    # ------------------------------------------------------------------ checkpoints
    def state(self) -> dict[str, Any]:
        """The documents and their analysed terms as plain data (a checkpoint's part; the
        layout: :mod:`capability_index.domain.index_checkpoint`)."""
        return store_state(self._store, fingerprint(self._tokenize), [self._k1, self._w, self._b])

    def load_state(self, data: dict[str, Any]) -> None:
        """Restore what :meth:`state` returned into this empty index, all or nothing."""
        if self._store.docs:
            raise ValueError("load_state needs an empty index")
        store = restore_store(data, fingerprint(self._tokenize), [self._k1, list(self._w), list(self._b)])
        self._store, self._scorer = self._attach(store)
        if self._vectors is not None:
            for doc in store.docs.values():
                self._vectors.upsert(doc.capability_id, _embedding_text(doc))

    # ------------------------------------------------------------------ search
    def candidates(self, ids: Collection[str]) -> Candidates:
        """A reusable restriction to ``ids`` (its slot mask is built once per index version)."""
        return Candidates(ids)

    def search(self, query: str, *, candidates: CandidateIds = None, limit: int) -> list[tuple[str, float]]:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first (:meth:`rank`)."""
        return self.rank(query, candidates=candidates, limit=limit).hits

    def rank(self, query: str, *, candidates: CandidateIds = None, limit: int) -> Ranking:
        """Top ``limit`` (capability_id, score) pairs with score > 0, best first, and how many
        documents the query matches lexically.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        Without an embedder the hits are :meth:`search_lexical` (BM25F scores); with one, the
        fusion (:func:`~capability_index.domain.dense_fusion.fuse_with_dense`) of the lexical
        top ``max(limit, depth)`` and the embedding top ``depth`` of the same candidates.
        """
        if self._vectors is None:
            return self.rank_lexical(query, candidates=candidates, limit=limit)
        lexical = self.rank_lexical(query, candidates=candidates, limit=max(limit, self.fusion.depth))
        if limit <= 0 or not self._store.docs or not query or query.isspace():
            return Ranking([], lexical.matched)
        allowed = candidate_set(candidates)
        if allowed is not None and not allowed:
            return Ranking([], 0)
        return fuse_with_dense(lexical, self._vectors, query, candidates=allowed, limit=limit,
                               config=self.fusion)

    def match_count(self, query: str, *, candidates: CandidateIds = None) -> int:
        """How many documents (among ``candidates``) the query matches lexically, i.e. how
        many have a score > 0."""
        return self.rank_lexical(query, candidates=candidates, limit=0).matched

    def search_lexical(self, query: str, *, candidates: CandidateIds = None, limit: int) -> list[tuple[str, float]]:
        """Exact BM25F top ``limit`` (capability_id, score) pairs with score > 0, best first.

        Ties are broken by capability_id. With ``candidates`` only those ids are scored.
        """
        return self.rank_lexical(query, candidates=candidates, limit=limit).hits

    def rank_lexical(self, query: str, *, candidates: CandidateIds = None, limit: int) -> Ranking:
        """:meth:`search_lexical` and :meth:`match_count` from one scoring pass."""
        if not self._store.docs or not query or query.isspace():
            return Ranking([], 0)
        return self._scorer.rank(self.analyze(query), candidates, limit)


def _embedding_text(doc: CapabilityDoc) -> str:
    return embedding_text(doc.name, doc.description, doc.use_rule, doc.param_names)
