"""The contracts of the knowledge-base's ``CursorStore`` and ``RateLimiter`` ports (memory and
Redis adapters).

Subclasses provide the fixtures ``cursors`` (a store on fresh storage), ``limiter_for`` (a
limiter with the given rate per second and burst, on fresh storage) and ``elapse``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from knowledge_base.service_layer.ports import CursorStore, RateLimiter

from tests.contracts import Elapse

LimiterFor = Callable[[float, int], RateLimiter]
SLOW = 0.001  # tokens per second: nothing refills while a test runs
CURSOR: dict[str, Any] = {"binding": {"query": "发票", "revision": 3}, "offset": 10,
                          "pool": [["f1", 0.5, ["bm25"], ["title"]]], "status": {"semanticStatus": None}}


class CursorStoreContract:
    async def test_a_cursor_reads_back_as_it_was_put(self, cursors: CursorStore) -> None:
        assert await cursors.get("sc_1") is None
        await cursors.put("sc_1", CURSOR, 60)
        assert await cursors.get("sc_1") == CURSOR
        assert await cursors.get("sc_2") is None

    async def test_a_cursor_is_kept_as_json(self, cursors: CursorStore) -> None:
        """What the caller changes afterwards is not in it, and tuples come back as lists."""
        value: dict[str, Any] = {"pool": [("f1", 0.5)], "offset": 10}
        await cursors.put("sc_1", value, 60)
        value["offset"] = 20
        value["pool"].append(("f2", 0.25))
        assert await cursors.get("sc_1") == {"pool": [["f1", 0.5]], "offset": 10}

    async def test_a_cursor_lives_its_ttl_and_a_put_replaces_it(
        self, cursors: CursorStore, elapse: Elapse
    ) -> None:
        await cursors.put("sc_1", {"offset": 1}, 1)
        await cursors.put("sc_2", {"offset": 2}, 1)
        await cursors.put("sc_2", {"offset": 3}, 60)  # value and lifetime
        assert await cursors.get("sc_2") == {"offset": 3}
        await elapse(1.3)
        assert await cursors.get("sc_1") is None
        assert await cursors.get("sc_2") == {"offset": 3}


class RateLimiterContract:
    async def test_a_burst_then_a_wait_per_account(self, limiter_for: LimiterFor) -> None:
        limiter = limiter_for(SLOW, 3)
        assert [await limiter.take("alice") for _ in range(3)] == [None] * 3
        wait = await limiter.take("alice")
        assert isinstance(wait, int) and 1 / SLOW - 5 <= wait <= 1 / SLOW  # a whole token away
        assert await limiter.take("alice") == wait  # a refusal takes nothing
        assert await limiter.take("bob") is None

    async def test_a_wait_is_at_least_a_second(self, limiter_for: LimiterFor) -> None:
        limiter = limiter_for(1.25, 1)  # a token every 0.8 s
        assert await limiter.take("alice") is None
        assert await limiter.take("alice") == 1

    async def test_tokens_come_back_at_the_rate(self, limiter_for: LimiterFor, elapse: Elapse) -> None:
        limiter = limiter_for(1.0, 2)
        assert [await limiter.take("alice") for _ in range(2)] == [None, None]
        assert await limiter.take("alice") == 1
        await elapse(1.2)  # one token back, not two
        assert await limiter.take("alice") is None
        assert await limiter.take("alice") == 1
