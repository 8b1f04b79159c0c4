"""Vectors on disk: ``<dir>/vectors.npz`` (chunk keys and a float32 matrix) plus
``vectors.json`` (model, count, the Kafka positions the store reflected when written, and which
rows each base's index used: ``bases``, so a restart keeps the vectors of a base it has not
indexed yet). Written to a temporary file and renamed, so a crash never leaves half a
checkpoint; an unreadable checkpoint is ignored (everything is embedded again)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)


class VectorCheckpoint:
    def __init__(self, directory: str, model: str) -> None:
        self.dir = Path(directory)
        self.model = model

    def load(self) -> tuple[dict[str, np.ndarray], dict[str, set[str]]]:
        """(vectors by chunk key, the keys each base used); a checkpoint written before the
        bases were kept gives no bases."""
        data, meta = self.dir / "vectors.npz", self.dir / "vectors.json"
        if not data.exists() or not meta.exists():
            return {}, {}
        try:
            info = json.loads(meta.read_text())
            if info.get("model") != self.model:
                return {}, {}
            with np.load(data) as archive:
                keys, matrix = archive["keys"].tolist(), archive["matrix"]
            vectors = {str(k): matrix[i] for i, k in enumerate(keys)}
            bases = {str(kb): {str(keys[row]) for row in rows} for kb, rows in info.get("bases", {}).items()}
            return vectors, bases
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
            log.warning("vector checkpoint unreadable (%s); embedding again", exc)
            return {}, {}

    def save(self, vectors: dict[str, np.ndarray], positions: dict[str, Any],
             bases: dict[str, set[str]]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        keys = sorted(vectors)
        matrix = np.vstack([vectors[k] for k in keys]) if keys else np.zeros((0, 512), np.float32)
        tmp = self.dir / "vectors.tmp.npz"
        np.savez(tmp, keys=np.array(keys), matrix=np.asarray(matrix, dtype=np.float32))  # no second copy
        row = {key: i for i, key in enumerate(keys)}
        meta_tmp = self.dir / "vectors.json.tmp"
        meta_tmp.write_text(json.dumps({
            "model": self.model, "count": len(keys), "positions": positions,
            "bases": {kb: sorted(row[k] for k in used if k in row) for kb, used in sorted(bases.items())},
        }))
        os.replace(tmp, self.dir / "vectors.npz")
        os.replace(meta_tmp, self.dir / "vectors.json")
