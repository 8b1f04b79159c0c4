"""Content vectors by chunk key (sha256 of the chunk text), embedded in the background.

Content-addressed: a chunk whose text did not change keeps its vector across applies and,
with a checkpoint directory, across restarts, so a restart embeds only what is new.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from knowledge_base.service_layer.ports import Embedder

QUERY_CACHE = 512


class VectorStore:
    """``load_embedder`` runs on the first embedding (in a worker thread): the encoder takes
    seconds to load and the service is ready before that, answering lexically meanwhile."""

    def __init__(self, load_embedder: Callable[[], Embedder], name: str, batch: int = 32) -> None:
        self._load_embedder = load_embedder
        self._embedder: Embedder | None = None
        self.name = name
        self.batch = batch
        self.vectors: dict[str, np.ndarray] = {}
        self._pending: OrderedDict[str, str] = OrderedDict()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.version = 0
        self.embedded = 0
        self.failed: str | None = None

    @property
    def pending(self) -> int:
        return len(self._pending)

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._load_embedder()
        return self._embedder

    def load_encoder(self) -> None:
        """Load the encoder now (blocking: run it in a worker thread); a failure is kept in
        ``failed`` and raised."""
        try:
            self.embedder()
        except Exception as exc:
            self.failed = type(exc).__name__
            raise

    def lacks(self, key: str) -> bool:
        """Neither embedded nor waiting to be."""
        return key not in self.vectors and key not in self._pending

    def want(self, chunks: Iterable[tuple[str, str]]) -> int:
        """Queue the (key, text) chunks not embedded yet; the texts are kept only until then."""
        added = 0
        given = list(chunks)  # before the lock: an index's chunk_texts chunks its files again
        with self._lock:
            for key, text in given:
                if key not in self.vectors and key not in self._pending:
                    self._pending[key] = text
                    added += 1
        return added

    def share(self, keys: Sequence[str], matrix: np.ndarray) -> None:
        """Hold the vectors of ``keys`` as views of the rows of an index's ``matrix`` (the same
        values): the store and the index then keep one copy between them, not two (80 MiB
        each for the 40,000 chunks of a 20,000-file base)."""
        with self._lock:
            for row, key in enumerate(keys):
                if key in self.vectors:
                    self.vectors[key] = matrix[row]

    def get(self, key: str) -> np.ndarray | None:
        return self.vectors.get(key)

    def embed_batch(self) -> int:
        """Embed up to one batch of pending chunks (blocking; run it in a worker thread)."""
        with self._lock:
            todo = list(self._pending.items())[: self.batch]
        if not todo:
            return 0
        try:
            matrix = self.embedder().embed([text for _, text in todo])
        except Exception as exc:
            self.failed = type(exc).__name__
            raise
        self.failed = None
        with self._lock:
            for (key, _), row in zip(todo, matrix, strict=True):
                self.vectors[key] = row
                self._pending.pop(key, None)
            self.version += 1
            self.embedded += len(todo)
        return len(todo)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_queries([text])[0]
        return vector

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text; those not in the query cache embedded in one encoder call."""
        found = {text: vector for text in texts if (vector := self._queries.get(text)) is not None}
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            if self._embedder is None:
                raise RuntimeError("the encoder is still loading")
            for text, vector in zip(missing, self._embedder.embed(missing), strict=True):
                found[text] = vector
                self._queries[text] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        stacked: np.ndarray = np.stack([found[text] for text in texts])
        return stacked

    def load(self, vectors: dict[str, np.ndarray]) -> None:
        with self._lock:
            self.vectors.update(vectors)
            for key in vectors:
                self._pending.pop(key, None)
            self.version += 1

    def keep_only(self, keys: set[str]) -> None:
        with self._lock:
            for key in [k for k in self.vectors if k not in keys]:
                del self.vectors[key]
