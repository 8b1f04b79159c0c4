"""The one contract every adapter of the gateway's ``RateLimiter`` port passes.

A test module subclasses :class:`RateLimiterContract` and provides the ``opener`` fixture: a
callable that opens a limiter with the given account and tool rates on fresh storage.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gateway.service_layer.rate_limits import BucketRates, RateLimiter

Opener = Callable[[BucketRates, BucketRates], RateLimiter]
SLOW = 0.01  # tokens per second: nothing refills while a test runs


class RateLimiterContract:
    @pytest.fixture
    def opener(self) -> Opener:
        raise NotImplementedError

    async def test_contract_tool_bucket_then_account_bucket(self, opener: Opener) -> None:
        limiter = opener(BucketRates(SLOW, 3), BucketRates(SLOW, 2))
        assert (await limiter.take("dev", "a")).admitted and (await limiter.take("dev", "a")).admitted
        tool = await limiter.take("dev", "a")
        assert (tool.admitted, tool.scope) == (False, "tool")
        assert 0 < tool.retry_after_seconds <= 1 / SLOW
        assert (await limiter.take("dev", "b")).admitted  # the refusal took no account token
        account = await limiter.take("dev", "c")
        assert (account.admitted, account.scope) == (False, "account")
        assert (await limiter.take("viewer", "a")).admitted
