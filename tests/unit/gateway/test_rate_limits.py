"""Token buckets in one process: burst, refill, the two scopes, a refusal takes nothing."""

from __future__ import annotations

import math

from gateway.adapters.memory_rate_limiter import MemoryRateLimiter
from gateway.service_layer.rate_limits import Admission, BucketRates, rate_limited


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limiter(clock: Clock, account: tuple[float, int] = (10, 4), tool: tuple[float, int] = (1, 2)) -> MemoryRateLimiter:
    return MemoryRateLimiter(BucketRates(*account), BucketRates(*tool), clock)


async def test_a_tool_bucket_empties_after_its_burst_and_refills_at_its_rate() -> None:
    clock = Clock()
    limits = limiter(clock)
    assert [(await limits.take("dev", "search")).admitted for _ in range(3)] == [True, True, False]
    refused = await limits.take("dev", "search")
    assert (refused.scope, math.isclose(refused.retry_after_seconds, 1.0)) == ("tool", True)
    clock.now += 0.5
    assert math.isclose((await limits.take("dev", "search")).retry_after_seconds, 0.5)
    clock.now += 0.5
    assert (await limits.take("dev", "search")).admitted


async def test_the_account_bucket_spans_every_tool_and_a_refusal_takes_nothing() -> None:
    clock = Clock()
    limits = limiter(clock, account=(1, 3), tool=(1, 2))
    assert (await limits.take("dev", "a")).admitted and (await limits.take("dev", "a")).admitted
    assert not (await limits.take("dev", "a")).admitted  # tool empty: the account keeps its token
    assert (await limits.take("dev", "b")).admitted
    refused = await limits.take("dev", "c")
    assert (refused.admitted, refused.scope) == (False, "account")
    assert (await limits.take("viewer", "a")).admitted  # other accounts are untouched


def test_the_refusal_is_429_rate_limited_with_retry_after() -> None:
    error = rate_limited(Admission(False, "tool", 0.2501), "search_capabilities")
    assert (error.code, error.status) == ("rate_limited", 429)
    assert error.headers == {"Retry-After": "1"}
    assert error.details == {"retry_after_seconds": 0.251, "scope": "tool", "tool": "search_capabilities"}
    en = error.envelope("en-US").message
    assert "search_capabilities" in en and "1 s" in en
    assert "请求过于频繁" in error.envelope("zh-CN").message
