"""The vector lane: the array computation keeps the ranking of the per-chunk loop it replaced,
concurrent searches share one encoder call and one matrix product, a failing encoder degrades
the answer instead of failing it, and the BLAS thread cap."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Sequence

import numpy as np
import pytest
from knowledge_base.adapters.blas import blas_threads, limit_blas_threads
from knowledge_base.adapters.memory_cursor_store import MemoryCursorStore
from knowledge_base.domain import search as search_module
from knowledge_base.domain.search import SearchIndex
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader
from knowledge_base.service_layer.searching import Searcher, SearchRequest
from knowledge_base.service_layer.vector_lane import VectorLane
from knowledge_base.service_layer.vectors import VectorStore

DIM = 64


class HashingEmbedder:
    """Deterministic bag of hashed, weighted words (unit rows; the weights make equal cosines
    rare, so an order does not hang on rounding); records the texts of each call."""

    name = "hashing"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.fail = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail:
            raise RuntimeError("encoder broke")
        self.calls.append(list(texts))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.sha256(word.encode()).digest()
                out[row, digest[0] % DIM] += (1.0 + digest[2] / 255) * (1 if digest[1] % 2 else -1)
            out[row, DIM - 1] += 0.5  # every text shares a little: many chunks clear the floor
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def _embedded(state: KnowledgeState, embedder: HashingEmbedder) -> tuple[SearchIndex, VectorStore]:
    view = state.view("handbook")
    assert view is not None
    index = SearchIndex(view, 300)  # small chunks: several per file
    vectors = VectorStore(lambda: embedder, "hashing", batch=64)
    vectors.want(index.chunk_texts())
    while vectors.pending:
        vectors.embed_batch()
    index.refresh_vectors(vectors)
    return index, vectors


def _loop_ranking(index: SearchIndex, vectors: VectorStore, query: str) -> list[tuple[str, float, int]]:
    """The lane as the per-chunk loop computed it: the POOL * 4 best chunks by cosine, stop at
    the floor, a file's first (best) chunk kept, at most POOL files."""
    embedded = [c for c in index.chunks if vectors.get(c.key) is not None]
    matrix = np.vstack([vectors.get(c.key) for c in embedded]).astype(np.float32)  # type: ignore[misc]
    sims = matrix @ vectors.embed_query(query)
    best: dict[str, tuple[float, int]] = {}
    for row in np.argsort(-sims, kind="stable")[: search_module.POOL * 4].tolist():
        if sims[row] < search_module.VECTOR_FLOOR:
            break
        best.setdefault(embedded[row].file_id, (float(sims[row]), embedded[row].start))
    return [(fid, sim, start) for fid, (sim, start) in best.items()][: search_module.POOL]


QUERIES = ["hotel cap per night", "annual leave carry over", "expense report approval",
           "password reset", "年假 结转", "incident escalation on call", "laptop", "travel"]


@pytest.mark.parametrize("pool", [2, 5, 200])
def test_the_array_lane_ranks_as_the_chunk_loop(demo_state: KnowledgeState, pool: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "POOL", pool)  # 2 and 5: the window cuts the chunks
    index, vectors = _embedded(demo_state, HashingEmbedder())
    assert index.embedded is not None and len(index.embedded.matrix) > len(index.docs)
    for query in QUERIES:
        expected = _loop_ranking(index, vectors, query)
        got = index.semantic(vectors.embed_query(query))
        assert [(f, s) for f, _, s in got] == [(f, s) for f, _, s in expected], query
        assert np.allclose([sim for _, sim, _ in got], [sim for _, sim, _ in expected]), query
    if pool < len(index.docs):
        assert any(len(index.semantic(vectors.embed_query(q))) == pool for q in QUERIES)


def test_concurrent_searches_share_one_encoder_call_and_product(demo_state: KnowledgeState) -> None:
    embedder = HashingEmbedder()
    index, vectors = _embedded(demo_state, embedder)
    expected = {q: index.semantic(vectors.embed_query(q)) for q in QUERIES}
    vectors._queries.clear()  # embed them again, through the lane
    embedder.calls.clear()
    lane = VectorLane(vectors)

    async def together() -> list[object]:
        return list(await asyncio.gather(*(lane.rank(index, q) for q in QUERIES)))

    got = asyncio.run(together())
    for query, ranked in zip(QUERIES, got, strict=True):  # one product: the same up to rounding
        assert isinstance(ranked, list) and ranked, query
        assert [(f, s) for f, _, s in ranked] == [(f, s) for f, _, s in expected[query]], query
        assert np.allclose([c for _, c, _ in ranked], [c for _, c, _ in expected[query]]), query
    # all eight were waiting when the worker started: one batch, one encoder call
    assert (lane.batches, lane.searches) == (1, len(QUERIES))
    assert embedder.calls == [QUERIES]
    # one after the other, each is a batch of its own; a repeated query is not embedded again
    asyncio.run(lane.rank(index, "a lone question"))
    asyncio.run(lane.rank(index, QUERIES[0]))
    assert (lane.batches, lane.searches) == (3, len(QUERIES) + 2)
    assert embedder.calls == [QUERIES, ["a lone question"]]


def test_a_failing_encoder_degrades_the_answer(demo_state: KnowledgeState, reader: Reader) -> None:
    embedder = HashingEmbedder()
    _, vectors = _embedded(demo_state, embedder)
    indexes = Indexes(demo_state, vectors, 300)
    searcher = Searcher(demo_state, indexes, MemoryCursorStore(), 5, 240, 60)

    def answer(query: str) -> dict[str, object]:
        return asyncio.run(searcher.search(reader, SearchRequest("handbook", query), "en-US"))

    ready = answer("hotel cap per night")
    assert ready["semanticStatus"] == {"state": "ready", "safeCode": None}
    assert ready["items"] and any("content" in i["evidenceTypes"] for i in ready["items"])  # type: ignore[attr-defined]
    embedder.fail = True
    failed = answer("a question never asked before")
    assert failed["semanticStatus"] == {"state": "degraded", "safeCode": "VECTOR_LANE_FAILED"}
    assert failed["searchStatus"] in ("ok", "no_candidates")


def _search_after_start(state: KnowledgeState, reader: Reader, vectors: VectorStore) -> dict[str, object]:
    """What a search answers once the indexer has run a moment after a start."""
    indexes = Indexes(state, vectors, 300)
    searcher = Searcher(state, indexes, MemoryCursorStore(), 5, 240, 60)

    async def started() -> dict[str, object]:
        indexer = asyncio.create_task(indexes.run())
        try:
            for _ in range(100):  # until the encoder is loaded (or failed), at most 5 s
                await asyncio.sleep(0.05)
                if vectors.loaded or vectors.failed:
                    break
            return await searcher.search(reader, SearchRequest("handbook", "hotel cap per night"), "en-US")
        finally:
            indexer.cancel()

    return asyncio.run(started())


def test_a_restart_that_found_every_vector_in_the_checkpoint_still_loads_the_encoder(
    demo_state: KnowledgeState, reader: Reader,
) -> None:
    """Nothing waits to be embedded, yet the queries need the encoder: it used to load only
    with the first pending chunk, so every search said ENCODER_LOADING until new content came."""
    _, before = _embedded(demo_state, HashingEmbedder())
    embedder = HashingEmbedder()
    restarted = VectorStore(lambda: embedder, "hashing", batch=64)
    restarted.load(dict(before.vectors))  # what the checkpoint gives back
    answer = _search_after_start(demo_state, reader, restarted)
    assert answer["semanticStatus"] == {"state": "ready", "safeCode": None}
    assert restarted.embedded == 0 and embedder.calls == [["hotel cap per night"]]  # the query only


def test_an_encoder_that_cannot_load_is_said_so_not_still_loading(
    demo_state: KnowledgeState, reader: Reader,
) -> None:
    def broken() -> HashingEmbedder:
        raise RuntimeError("no weights")

    answer = _search_after_start(demo_state, reader, VectorStore(broken, "hashing"))
    assert answer["semanticStatus"] == {"state": "degraded", "safeCode": "ENCODER_LOAD_FAILED"}
    assert answer["items"]  # answered lexically


def test_blas_is_capped_at_the_setting() -> None:
    if not blas_threads():
        pytest.skip("no BLAS library loaded")
    before = blas_threads()
    try:
        limit_blas_threads(1)
        assert set(blas_threads()) == {1}
    finally:
        limit_blas_threads(max(before))


def test_batches_embedded_during_a_refresh_are_picked_up_by_the_next_search(
        demo_state: KnowledgeState, monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedder goes on while a search refreshes the matrix in its thread: the version
    marked as seen is the one before the refresh, or the last batches were never gathered
    and the base answered ``VECTORS_PARTIAL`` for good."""
    vectors = VectorStore(HashingEmbedder, "hashing", batch=8)
    indexes = Indexes(demo_state, vectors, 300)
    index = asyncio.run(indexes.index("handbook"))
    assert index is not None and index.missing_vectors == len(index.chunks) and vectors.pending > 8
    vectors.embed_batch()
    gather = index.refresh_vectors

    def gather_while_the_rest_is_embedded(store: VectorStore) -> None:
        gather(store)
        while vectors.pending:
            vectors.embed_batch()

    monkeypatch.setattr(index, "refresh_vectors", gather_while_the_rest_is_embedded)
    asyncio.run(indexes.index("handbook"))
    assert index.missing_vectors > 0 and vectors.pending == 0
    monkeypatch.undo()
    asyncio.run(indexes.index("handbook"))
    assert index.missing_vectors == 0
