"""Invocation-id records in Redis (the ``Idempotency`` port): one execution per (account, tool,
invocation id)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from redis.asyncio import Redis

from gateway.service_layer.ports import FINAL_STATES, Claim


def _claim(stored: dict[str, Any]) -> Claim:
    return Claim(stored["state"], stored["input_hash"], stored.get("result"), stored.get("error"))


class RedisIdempotency:
    def __init__(self, redis: Redis, prefix: str, ttl_seconds: int) -> None:
        self._redis = redis
        self._prefix = prefix
        self._ttl = ttl_seconds

    def _key(self, account: str, tool: str, invocation_id: str) -> str:
        return f"{self._prefix}idem:{account}:{tool}:{invocation_id}"

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        """Reserve the id for this input, or report what an earlier call with it did."""
        key = self._key(account, tool, invocation_id)
        record = json.dumps({"state": "running", "input_hash": input_hash})
        if await self._redis.set(key, record, nx=True, ex=self._ttl):
            return Claim("fresh", input_hash)
        raw = await self._redis.get(key)
        if raw is None:  # expired between the two calls: try once more
            return await self.claim(account, tool, invocation_id, input_hash)
        return _claim(json.loads(raw))

    async def wait_done(
        self, account: str, tool: str, invocation_id: str, timeout: float
    ) -> Claim | None:
        """Wait for a running call with this id to end, done or failed (polling; bounded by
        ``timeout``)."""
        key = self._key(account, tool, invocation_id)
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            raw = await self._redis.get(key)
            if raw is None:
                return None
            stored = json.loads(raw)
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
        await self._redis.set(self._key(account, tool, invocation_id), json.dumps(record), ex=self._ttl)

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        """Forget a claim whose call was refused before anything ran (the id may be reused)."""
        await self._redis.delete(self._key(account, tool, invocation_id))
