"""The vector lane of concurrent searches, batched in one worker thread.

Each search's vector lane is an encoder call (the query's vector, ~1.8 ms alone) and a
product of the base's chunk matrix (~20,000 x 512 floats on 10,000 files) with that vector
(~1.6 ms). Run on the event loop, the product stopped every other request meanwhile; run per
search, each search paid both in full. Here the searches waiting when the worker becomes free
are taken together: one encoder call for their uncached queries (8 queries cost ~0.6 ms
each), the products (:func:`cosines`; numpy releases the GIL meanwhile), then each search's
best chunks per file. No timer: a batch is whatever queued while the previous one ran, so a
lone search waits for nobody.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import numpy as np

from knowledge_base.domain.search import SearchIndex, VectorHits
from knowledge_base.service_layer.vectors import VectorStore

GEMM_FROM = 4


@dataclass
class _Waiting:
    index: SearchIndex
    query: str
    future: asyncio.Future[VectorHits]


@dataclass
class VectorLane:
    vectors: VectorStore
    _queue: list[_Waiting] = field(default_factory=list)
    _worker: asyncio.Task[None] | None = None
    batches: int = 0
    """Batches run so far (the searches they served: ``searches``)."""
    searches: int = 0

    async def rank(self, index: SearchIndex, query: str) -> VectorHits:
        """The vector lane of ``query`` on ``index``; an exception when it failed."""
        future: asyncio.Future[VectorHits] = asyncio.get_running_loop().create_future()
        self._queue.append(_Waiting(index, query, future))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._drain(), name="knowledge-base-vector-lane")
        return await future

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue, []
            batch = [w for w in batch if not w.future.done()]  # a search that timed out meanwhile
            if not batch:
                continue
            try:
                results = await asyncio.to_thread(self._run, batch)
            except Exception as exc:
                results = [exc] * len(batch)
            self.batches += 1
            self.searches += len(batch)
            for waiting, result in zip(batch, results, strict=True):
                if not waiting.future.done():
                    waiting.future.set_result(result)

    def _run(self, batch: list[_Waiting]) -> list[VectorHits]:
        """In the worker thread: embed the batch's queries, one product per index."""
        queries = self.vectors.embed_queries([w.query for w in batch])
        results: list[VectorHits] = [[] for _ in batch]
        by_index: dict[int, list[int]] = {}
        for i, waiting in enumerate(batch):
            by_index.setdefault(id(waiting.index), []).append(i)
        for members in by_index.values():
            index = batch[members[0]].index
            embedded = index.embedded
            if embedded is None:
                continue
            for i, sims in zip(members, cosines(embedded.matrix, queries[members]), strict=True):
                results[i] = index.semantic_ranked(embedded, sims)
        return results


def cosines(matrix: np.ndarray, queries: np.ndarray) -> list[np.ndarray]:
    """``matrix @ q`` for each row ``q`` of ``queries``. The product reads the whole matrix
    (40 MB on 10,000 files) from memory, which is what it costs: one matrix-vector product
    per query up to ``GEMM_FROM`` queries, then one matrix-matrix product for all of them (on
    one BLAS thread here it costs about as much as three matrix-vector products, whatever
    the number of queries; ``queries @ matrix.T`` cost three times that)."""
    queries = queries.astype(np.float32)
    if len(queries) < GEMM_FROM:
        return [matrix @ query for query in queries]
    product = matrix @ np.ascontiguousarray(queries.T)
    return list(np.ascontiguousarray(product.T))
