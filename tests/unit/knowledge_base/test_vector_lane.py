"""Content vectors of an index: the matrix gathers every batch embedded."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Sequence

import numpy as np
import pytest
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
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
