"""The contract of capability-index's ``Embedder`` port (the unit suite's ``FakeEmbedder`` and
the packaged model, ``UniversalSentenceEncoder``), as ``VectorStore`` relies on it: rows of one
matrix, embedded in batches that may group documents differently each time.

Subclasses provide the fixture ``embedder``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from capability_index.domain.embeddings import Embedder, embedding_text

TEXTS = [
    embedding_text("getInvoice", "Get a supplier invoice by ID.", param_names=("invoice_id",)),
    embedding_text("wms_stock_query", "查询实时库存，返回各仓库可用数量。", param_names=("sku",)),
    "重启服务器",
    "",
]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = math.fsum(float(x) * float(y) for x, y in zip(a, b, strict=True))
    return dot / (math.hypot(*map(float, a)) * math.hypot(*map(float, b)))


class EmbedderContract:
    def test_it_has_a_name(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder) and isinstance(embedder.name, str) and embedder.name

    def test_a_vector_per_text_in_order_all_of_one_size(self, embedder: Embedder) -> None:
        vectors = embedder.embed_documents(TEXTS)
        assert len(vectors) == len(TEXTS)
        assert len({len(v) for v in vectors}) == 1 and len(vectors[0]) > 0
        for vector in vectors:  # finite and never zero, the empty text's too
            assert all(math.isfinite(float(x)) for x in vector) and any(float(x) != 0.0 for x in vector)
        assert list(embedder.embed_documents([])) == []

    def test_a_vector_does_not_depend_on_its_batch(self, embedder: Embedder) -> None:
        together = embedder.embed_documents(TEXTS)
        for text, vector in zip(TEXTS, together, strict=True):
            alone = embedder.embed_documents([text])[0]
            assert cosine(alone, vector) > 0.9999
        reversed_batch = embedder.embed_documents(TEXTS[::-1])
        assert [cosine(a, b) > 0.9999 for a, b in zip(together, reversed_batch[::-1], strict=True)] == [
            True] * len(TEXTS)

    def test_a_query_points_where_the_same_text_as_a_document_does(self, embedder: Embedder) -> None:
        for text, document in zip(TEXTS, embedder.embed_documents(TEXTS), strict=True):
            query = embedder.embed_query(text)
            assert len(query) == len(document) and cosine(query, document) > 0.9999
