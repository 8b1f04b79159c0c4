"""Search indexes per base, rebuilt when a base changes, and the background embedder.

The build runs in a worker thread (parsing and BM25 of a large base take a while); one build
per base at a time. The embedder works through pending chunks batch by batch, so lexical
search is available as soon as a revision is indexed and vectors join as they are ready
(``semanticStatus`` says which).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from knowledge_base.domain.search import SearchIndex
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.vectors import VectorStore

log = logging.getLogger(__name__)


class Indexes:
    def __init__(self, state: KnowledgeState, vectors: VectorStore | None, chunk_chars: int,
                 checkpoint: Callable[[dict[str, set[str]]], None] | None = None,
                 checkpoint_seconds: float = 30.0,
                 settle: Callable[[], None] | None = None,
                 release: Callable[[], object] | None = None) -> None:
        self.state = state
        self.vectors = vectors
        self.chunk_chars = chunk_chars
        self._indexes: dict[str, tuple[int, SearchIndex, int]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._build_lock = threading.Lock()
        self._wake = asyncio.Event()
        self._checkpoint = checkpoint
        self._checkpoint_seconds = checkpoint_seconds
        self._saved_version = -1
        self._settle = settle  # run after each build, in the build's thread (bootstrap: the heap)
        self._release = release  # after each vector refresh, in its thread: the old matrix's pages
        self._carried: dict[str, set[str]] = {}

    def carry(self, bases: dict[str, set[str]]) -> None:
        """The chunk keys each base used when the vector checkpoint was written: kept until
        that base is indexed again (then dropped), so vectors loaded before their base is re-applied (a
        store rebuilt on new topics, a base applied after the restart) are not pruned."""
        self._carried = {kb: set(keys) for kb, keys in bases.items()}

    def wake(self) -> None:
        self._wake.set()

    def _build(self, kb_id: str) -> tuple[int, SearchIndex, int] | None:
        """(base version, index, vector version its matrix reflects at least)."""
        with self._build_lock:
            base = self.state.bases.get(kb_id)
            if base is None:
                return None
            version = base.version
            view = self.state.view(kb_id)
            if view is None:
                return None
            index = SearchIndex(view, self.chunk_chars)
            seen = 0
            if self.vectors is not None:
                self.vectors.want(index.chunk_texts(self.vectors.lacks))
                seen = self.vectors.version
                index.refresh_vectors(self.vectors)
            if self._settle is not None:
                self._settle()
            return version, index, seen

    async def index(self, kb_id: str) -> SearchIndex | None:
        """The index of the base's current version (built now if it is not yet)."""
        base = self.state.bases.get(kb_id)
        if base is None:
            return None
        lock = self._locks.setdefault(kb_id, asyncio.Lock())
        async with lock:
            current = self._indexes.get(kb_id)
            if current is None or current[0] != base.version:
                built = await asyncio.to_thread(self._build, kb_id)
                if built is None:
                    return None
                current = built
                self._indexes[kb_id] = current
                self._carried.pop(kb_id, None)  # its index says which vectors it uses now
                self.wake()
            version, index, seen = current
            if self.vectors is not None and seen != self.vectors.version and index.missing_vectors:
                # the version before the refresh: batches embedded while it runs (in its
                # thread) are picked up by the next search, not marked as seen
                now = self.vectors.version
                await asyncio.to_thread(self._refresh, index, self.vectors)
                self._indexes[kb_id] = (version, index, now)
            return index

    def _refresh(self, index: SearchIndex, vectors: VectorStore) -> None:
        index.refresh_vectors(vectors)
        if self._release is not None:
            self._release()

    async def run(self, caught_up: asyncio.Event | None = None) -> None:
        """Index changed bases and embed pending chunks until cancelled. With ``caught_up``
        (the projection's initial replay), nothing is indexed before it is set: the states a
        replay passes through would otherwise embed chunks of revisions long replaced."""
        if caught_up is not None:
            await caught_up.wait()
        last_save = time.monotonic()
        while True:
            self._wake.clear()
            for kb_id, base in list(self.state.bases.items()):
                if base.applied and (kb_id not in self._indexes or self._indexes[kb_id][0] != base.version):
                    try:
                        await self.index(kb_id)
                    except Exception:
                        log.exception("indexing %s failed", kb_id)
            if not await self._encoder_loaded():
                continue
            while self.vectors is not None and self.vectors.pending and not self._wake.is_set():
                try:
                    await asyncio.to_thread(self.vectors.embed_batch)
                except Exception:
                    log.exception("embedding failed; retrying in 5 s")
                    await asyncio.sleep(5)
                if time.monotonic() - last_save > self._checkpoint_seconds:
                    self.save()
                    last_save = time.monotonic()
            if self.vectors is not None and not self.vectors.pending:
                self.save()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self._checkpoint_seconds)

    async def _encoder_loaded(self) -> bool:
        """Load the encoder once a base is applied, whether or not a chunk waits to be embedded:
        after a restart that found every vector in the checkpoint nothing does, and the
        queries' vectors still need it (a failure: retried after 5 s; False meanwhile)."""
        vectors = self.vectors
        if vectors is None or vectors.loaded or not any(b.applied for b in self.state.bases.values()):
            return True
        try:
            await asyncio.to_thread(vectors.load_encoder)
        except Exception:
            log.exception("loading the encoder failed; retrying in 5 s")
            await asyncio.sleep(5)
            return False
        return True

    def settled(self) -> bool:
        """Every applied base indexed at its current version and nothing left to embed."""
        current = all(k in self._indexes and self._indexes[k][0] == b.version
                      for k, b in self.state.bases.items() if b.applied)
        return current and (self.vectors is None or self.vectors.pending == 0)

    @property
    def checkpointed(self) -> bool:
        return self.vectors is not None and self._saved_version == self.vectors.version

    def save(self) -> None:
        if self._checkpoint is None or self.vectors is None or self.vectors.version == self._saved_version:
            return
        stale = [k for k, b in self.state.bases.items() if b.applied
                 and (k not in self._indexes or self._indexes[k][0] != b.version)]
        if stale:  # vectors of a base not indexed yet must not be pruned
            return
        used = {kb: {c.key for c in index.chunks} for kb, (_, index, _) in self._indexes.items()}
        used.update(self._carried)  # bases not indexed since the start
        try:
            self.vectors.keep_only(set().union(*used.values()))
            self._checkpoint(used)
            self._saved_version = self.vectors.version
        except Exception:
            log.exception("vector checkpoint failed")
