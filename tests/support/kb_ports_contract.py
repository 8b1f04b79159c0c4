"""One contract for the knowledge-base ports (cursor store, rate limiter), run against the
in-memory adapters (unit tests) and the Redis adapters (integration tests)."""

from __future__ import annotations

import uuid

from knowledge_base.service_layer.ports import CursorStore, RateLimiter


async def check_cursor_store(store: CursorStore) -> None:
    token = uuid.uuid4().hex
    assert await store.get(token) is None
    await store.put(token, {"offset": 10, "items": [{"fileId": "a"}]}, 60)
    assert await store.get(token) == {"offset": 10, "items": [{"fileId": "a"}]}


async def check_rate_limiter(limiter: RateLimiter, burst: int) -> None:
    """``limiter`` has a ``burst``-token bucket refilling slower than this loop runs."""
    account = f"acct-{uuid.uuid4().hex[:8]}"
    assert [await limiter.take(account) for _ in range(burst)] == [None] * burst
    wait = await limiter.take(account)
    assert wait is not None and wait >= 1
    assert await limiter.take(f"other-{account}") is None  # per account
