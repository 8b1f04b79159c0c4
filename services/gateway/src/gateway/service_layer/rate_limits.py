"""Rate limits of tool calls: the port and the refusal (adapters in ``adapters/rate_limit.py``).

Two token buckets per call: the account's (every tool) and the account's for that tool. A
call is admitted only when both hold a token, and then takes one from each; a refused call
takes nothing. Off unless ``GATEWAY_RATE_LIMIT_ENABLED=true``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from bkn_common.contracts.errors import ApiError
from gateway.domain.errors import GatewayCode


@dataclass(frozen=True)
class BucketRates:
    per_second: float
    burst: int


@dataclass(frozen=True)
class Admission:
    admitted: bool
    scope: str | None = None  # "account" or "tool" when refused
    retry_after_seconds: float = 0.0


class RateLimiter(Protocol):
    async def take(self, account: str, tool: str) -> Admission:
        """Take a token from both buckets of this call, or from neither."""
        ...


def rate_limited(admission: Admission, tool: str) -> ApiError:
    """429 ``rate_limited`` with ``Retry-After`` (whole seconds) and the exact wait in details."""
    wait = math.ceil(admission.retry_after_seconds * 1000) / 1000  # rounded up: a token is there by then
    return ApiError(
        GatewayCode.RATE_LIMITED, 429, params={"retry_after": max(1, math.ceil(wait)), "tool": tool},
        details={"retry_after_seconds": wait, "scope": admission.scope, "tool": tool},
        headers={"Retry-After": str(max(1, math.ceil(wait)))},
    )
