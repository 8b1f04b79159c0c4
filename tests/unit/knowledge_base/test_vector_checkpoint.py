"""The vector checkpoint keeps which chunks each base used, and a restart keeps the vectors of
a base it has not indexed yet instead of pruning them before the base comes back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
from knowledge_base.adapters.vector_checkpoint import VectorCheckpoint
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.vectors import VectorStore

from tests.unit.knowledge_base.test_vector_lane import HashingEmbedder, _embedded


def _vectors(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {f"k{i:03d}": rng.random(512).astype(np.float32) for i in range(n)}


def test_the_checkpoint_gives_back_the_vectors_and_each_bases_keys(tmp_path: Path) -> None:
    vectors = _vectors(5)
    checkpoint = VectorCheckpoint(str(tmp_path), "usem3")
    checkpoint.save(vectors, {"t:0": 9}, {"a": {"k000", "k001"}, "b": {"k001", "k004", "gone"}})
    loaded, bases = checkpoint.load()
    assert sorted(loaded) == sorted(vectors) and all(np.array_equal(loaded[k], v) for k, v in vectors.items())
    assert bases == {"a": {"k000", "k001"}, "b": {"k001", "k004"}}  # a key without a vector: dropped


def test_a_checkpoint_from_before_the_bases_were_kept_loads_with_none(tmp_path: Path) -> None:
    checkpoint = VectorCheckpoint(str(tmp_path), "usem3")
    checkpoint.save(_vectors(2), {}, {"a": {"k000"}})
    meta = tmp_path / "vectors.json"
    info = json.loads(meta.read_text())
    del info["bases"]
    meta.write_text(json.dumps(info))
    loaded, bases = checkpoint.load()
    assert len(loaded) == 2 and bases == {}


Written = list[dict[str, set[str]]]


def _restarted(before: VectorStore, carried: dict[str, set[str]] | None) -> tuple[VectorStore, Written]:
    """A service started on an empty store (its base not applied again yet) with the vectors
    of ``before``; the checkpoint it writes when the indexer has nothing to do."""
    store = VectorStore(HashingEmbedder, "hashing")
    store.load(dict(before.vectors))
    written: Written = []
    indexes = Indexes(KnowledgeState(), store, 300, written.append)
    if carried is not None:
        indexes.carry(carried)
    indexes.save()
    return store, written


def test_vectors_of_a_base_not_indexed_yet_survive_the_first_checkpoint(demo_state: KnowledgeState) -> None:
    index, before = _embedded(demo_state, HashingEmbedder())
    keys = {c.key for c in index.chunks}
    store, written = _restarted(before, {"handbook": keys})
    assert set(store.vectors) == keys and written == [{"handbook": keys}]
    # once the base is back and indexed, its own chunks are what it keeps, nothing re-embedded
    indexes = Indexes(demo_state, store, 300, written.append)
    indexes.carry({"handbook": keys})
    asyncio.run(indexes.index("handbook"))
    assert store.pending == 0 and store.embedded == 0


def test_without_the_bases_the_first_checkpoint_prunes_every_loaded_vector(demo_state: KnowledgeState) -> None:
    """What a restart did before: the vectors went, and every chunk was embedded again."""
    _, before = _embedded(demo_state, HashingEmbedder())
    store, written = _restarted(before, None)
    assert store.vectors == {} and written == [{}]
