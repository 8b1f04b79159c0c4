"""Invocation-id records in Redis (the ``Idempotency`` port): one execution per (account, tool,
invocation id).

Redis away: a claim (or a wait) is 503 ``dependency_unavailable`` before anything ran; a record
that cannot be written after the call (complete, fail, release) is logged and the caller still
gets the call's own answer; the record then stays ``running`` until its TTL, so a retry with
the id waits and answers 409 ``receipt_pending`` (its receipt is on Kafka), never runs again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.service_layer.ports import FINAL_STATES, Claim, upgraded

log = logging.getLogger(__name__)


@asynccontextmanager
async def _refused_without_redis() -> AsyncIterator[None]:
    try:
        yield
    except RedisError as exc:
        raise ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": "redis"},
                       details={"dependency": "redis", "error": type(exc).__name__}) from exc


def _claim(stored: dict[str, Any]) -> Claim:
    return upgraded(Claim(stored["state"], stored["input_hash"], stored.get("result"), stored.get("error"),
                          stored.get("attempt", 0)))


# KEYS[1] the record, ARGV[1] input hash, ARGV[2] ttl: a new or released ("retryable") record
# becomes running for this call and the answer is {"state": "fresh", "attempt": n}; anything
# else is returned as it is stored.
_CLAIM = """
local raw = redis.call('GET', KEYS[1])
local attempt = 0
if raw then
  local stored = cjson.decode(raw)
  if stored['state'] ~= 'retryable' then return raw end
  attempt = (tonumber(stored['attempt']) or 0) + 1
end
redis.call('SET', KEYS[1], cjson.encode({state = 'running', input_hash = ARGV[1], attempt = attempt}),
           'EX', tonumber(ARGV[2]))
return cjson.encode({state = 'fresh', input_hash = ARGV[1], attempt = attempt})
"""

# KEYS[1] the record: a running record becomes retryable (its attempt count kept).
_RELEASE = """
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
local stored = cjson.decode(raw)
if stored['state'] ~= 'running' then return 0 end
stored['state'] = 'retryable'
redis.call('SET', KEYS[1], cjson.encode(stored), 'KEEPTTL')
return 1
"""


class RedisIdempotency:
    def __init__(self, redis: Redis, prefix: str, ttl_seconds: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl = ttl_seconds
        self._claim = redis.register_script(_CLAIM)
        self._release = redis.register_script(_RELEASE)

    def _key(self, account: str, tool: str, invocation_id: str) -> str:
        return f"{self._prefix}idem:{account}:{tool}:{invocation_id}"

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        """Reserve the id for this input, or report what an earlier call with it did."""
        async with _refused_without_redis():
            raw = await self._claim(keys=[self._key(account, tool, invocation_id)], args=[input_hash, self._ttl])
        return _claim(json.loads(raw))

    async def wait_done(
        self, account: str, tool: str, invocation_id: str, timeout: float
    ) -> Claim | None:
        """Wait for a running call with this id to end, done or failed (polling; bounded by
        ``timeout``)."""
        key = self._key(account, tool, invocation_id)
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            async with _refused_without_redis():
                raw = await self._redis.get(key)
            if raw is None:
                return None
            stored = json.loads(raw)
            if stored["state"] == "retryable":  # refused before anything ran: nothing to wait for
                return None
            if stored["state"] in FINAL_STATES:
                return _claim(stored)
            await asyncio.sleep(0.05)
        return None

    async def complete(
        self, account: str, tool: str, invocation_id: str, input_hash: str, result: Any
    ) -> None:
        await self._store(account, tool, invocation_id,
                          {"state": "done", "input_hash": input_hash, "result": result})

    async def fail(
        self, account: str, tool: str, invocation_id: str, input_hash: str, error: dict[str, Any]
    ) -> None:
        """Remember a failure after the call may have acted: a retry gets it, never a new run."""
        await self._store(account, tool, invocation_id,
                          {"state": "failed", "input_hash": input_hash, "error": error})

    async def _store(self, account: str, tool: str, invocation_id: str, record: dict[str, Any]) -> None:
        try:
            await self._redis.set(self._key(account, tool, invocation_id), json.dumps(record), ex=self._ttl)
        except RedisError as exc:
            log.warning("invocation record %s %s: %s not stored: %s", tool, invocation_id, record["state"], exc)

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        """Free a claim whose call was refused before anything ran: the next claim of the id is
        a fresh attempt (one further)."""
        try:
            await self._release(keys=[self._key(account, tool, invocation_id)])
        except RedisError as exc:
            log.warning("invocation record %s %s: not released: %s", tool, invocation_id, exc)
