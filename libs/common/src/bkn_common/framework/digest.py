"""Digests of derived state: what `clctl replay --verify` compares between a store rebuilt
from the log and the live one. A store exposes ``snapshot() -> {section: JSON-able data}``."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Protocol


class Snapshotting(Protocol):
    def snapshot(self) -> dict[str, Any]: ...


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _count(data: Any) -> int:
    return len(data) if isinstance(data, (dict, list)) else 1


def state_digest(snapshot: dict[str, Any]) -> dict[str, Any]:
    """Per-section ``{count, sha256}`` and one overall ``sha256``."""
    sections = {
        name: {"count": _count(data), "sha256": hashlib.sha256(canonical(data).encode()).hexdigest()}
        for name, data in sorted(snapshot.items())
    }
    overall = hashlib.sha256(canonical(sections).encode()).hexdigest()
    return {"sha256": overall, "sections": sections}


def differing_keys(left: Any, right: Any, limit: int = 20) -> list[str]:
    """Top-level keys (or list positions) whose values differ between two section snapshots."""
    if isinstance(left, dict) and isinstance(right, dict):
        keys = sorted(set(left) | set(right), key=str)
        return [str(k) for k in keys if canonical(left.get(k)) != canonical(right.get(k))][:limit]
    if isinstance(left, list) and isinstance(right, list):
        size = max(len(left), len(right))
        pad = [None] * size
        pairs = zip((left + pad)[:size], (right + pad)[:size], strict=True)
        return [f"[{i}]" for i, (a, b) in enumerate(pairs) if canonical(a) != canonical(b)][:limit]
    return [] if canonical(left) == canonical(right) else ["<value>"]
