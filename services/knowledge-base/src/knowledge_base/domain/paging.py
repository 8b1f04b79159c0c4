"""Stateless page cursors bound to what they continue: the revision and the request's shape.

A cursor from another revision, or reused with another ``parentPath`` / ``limit`` / file, is
refused with VALIDATION_ERROR ``details.reason=stale_cursor`` (restart without a cursor).
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from knowledge_base.domain.errors import invalid_cursor, stale_cursor


def _binding(kind: str, shape: dict[str, Any]) -> str:
    text = json.dumps([kind, shape], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode_cursor(kind: str, revision: int, offset: int, shape: dict[str, Any]) -> str:
    raw = json.dumps({"k": kind, "r": revision, "o": offset, "b": _binding(kind, shape)},
                     separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str | None, kind: str, revision: int, shape: dict[str, Any]) -> int:
    """The offset a cursor continues at (0 without one), or a refusal."""
    if not cursor:
        return 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = int(data["o"])
        if data["k"] != kind or offset < 0:
            raise ValueError(kind)
    except (ValueError, KeyError, TypeError, json.JSONDecodeError):
        raise invalid_cursor() from None
    if data.get("r") != revision:
        raise stale_cursor(f"activeContentRevision moved from {data.get('r')} to {revision}")
    if data.get("b") != _binding(kind, shape):
        raise stale_cursor("it was issued for other parameters")
    return offset


def page(items: list[Any], offset: int, limit: int) -> tuple[list[Any], int | None]:
    """Items of one page and the offset of the next (None at the end)."""
    chunk = items[offset: offset + limit]
    nxt = offset + limit
    return chunk, nxt if nxt < len(items) else None
