"""Vectors on disk: ``<dir>/vectors.npz`` (chunk keys and a float32 matrix) plus
``vectors.json`` (model, count and the Kafka positions the store reflected when written).
Written to a temporary file and renamed, so a crash never leaves half a checkpoint; an
unreadable checkpoint is ignored (everything is embedded again)."""

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

    def load(self) -> dict[str, np.ndarray]:
        data, meta = self.dir / "vectors.npz", self.dir / "vectors.json"
        if not data.exists() or not meta.exists():
            return {}
        try:
            info = json.loads(meta.read_text())
            if info.get("model") != self.model:
                return {}
            with np.load(data) as archive:
                keys, matrix = archive["keys"], archive["matrix"]
            return {str(k): matrix[i] for i, k in enumerate(keys.tolist())}
        except (OSError, ValueError, KeyError) as exc:
            log.warning("vector checkpoint unreadable (%s); embedding again", exc)
            return {}

    def save(self, vectors: dict[str, np.ndarray], positions: dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        keys = sorted(vectors)
        matrix = np.vstack([vectors[k] for k in keys]) if keys else np.zeros((0, 512), np.float32)
        tmp = self.dir / "vectors.tmp.npz"
        np.savez(tmp, keys=np.array(keys), matrix=matrix.astype(np.float32))
        meta_tmp = self.dir / "vectors.json.tmp"
        meta_tmp.write_text(json.dumps({"model": self.model, "count": len(keys),
                                        "positions": positions}))
        os.replace(tmp, self.dir / "vectors.npz")
        os.replace(meta_tmp, self.dir / "vectors.json")
