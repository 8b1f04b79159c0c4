"""Span retention: spans that ended more than the retention ago are deleted in batches (the
spans topic keeps them as long, 7 days by default); every other record stays as long as the
topics keep it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from trace_recorder.service_layer.view_ports import SpanPruning, StoreUnavailable

log = logging.getLogger(__name__)


async def prune(
    store: SpanPruning, retention_seconds: int, batch_size: int,
    now: Callable[[], float] = time.time,
) -> int:
    """Delete every span that ended more than ``retention_seconds`` ago, ``batch_size`` per
    transaction (yielding to the event loop between batches); return how many."""
    cut = int((now() - retention_seconds) * 1e9)
    total = 0
    while True:
        removed = store.prune_spans(cut, batch_size)
        total += removed
        if removed < batch_size:
            return total
        await asyncio.sleep(0)


async def prune_forever(
    store: SpanPruning, retention_seconds: int, batch_size: int, interval_seconds: float
) -> None:
    """Prune every ``interval_seconds`` (the first time right away)."""
    while True:
        try:
            total = await prune(store, retention_seconds, batch_size)
            if total:
                log.info("span retention: pruned %d spans older than %d s", total, retention_seconds)
        except StoreUnavailable as exc:
            log.warning("span retention: the view's database is unavailable: %s", exc)
        await asyncio.sleep(interval_seconds)
