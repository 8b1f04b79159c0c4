"""Coordination on Redis: prefixed keys, leases and locks as atomic scripts."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from trace_recorder.service_layer.ports import CoordinationUnavailable

# take or refresh: free or held by ARGV[1] -> set with TTL, return nil; else return the holder
_CLAIM = """
local current = redis.call('GET', KEYS[1])
if (not current) or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return nil
end
return current
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_INCR = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class RedisCoordination:
    """The :class:`~trace_recorder.service_layer.ports.Coordination` port on Redis."""

    def __init__(self, client: Redis, prefix: str, lock_ttl_seconds: int = 15) -> None:
        self._redis = client
        self._prefix = prefix
        self._lock_ttl = lock_ttl_seconds

    def _key(self, key: str) -> str:
        return self._prefix + key

    async def _eval(self, script: str, key: str, *args: Any) -> Any:
        try:
            return await self._redis.eval(script, 1, self._key(key), *args)
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc

    async def ping(self) -> bool:
        try:
            return bool(await self._redis.ping())
        except RedisError:
            return False

    @asynccontextmanager
    async def lock(self, name: str, wait_seconds: float) -> AsyncIterator[None]:
        token = uuid.uuid4().hex
        deadline = time.monotonic() + wait_seconds
        delay = 0.005
        while not await self.put(name, token, ttl=self._lock_ttl, only_if_absent=True):
            if time.monotonic() > deadline:
                raise CoordinationUnavailable(f"lock {name} not acquired within {wait_seconds}s")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.1)
        try:
            yield
        finally:  # shielded: a cancelled request must still free the lock
            await asyncio.shield(self.release(name, token))

    async def get(self, key: str) -> str | None:
        try:
            value = await self._redis.get(self._key(key))
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc
        return None if value is None else str(value)

    async def put(
        self, key: str, value: str, *, ttl: int | None = None, only_if_absent: bool = False
    ) -> bool:
        try:
            done = await self._redis.set(self._key(key), value, ex=ttl, nx=only_if_absent)
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc
        return bool(done)

    async def claim(self, key: str, holder: str, ttl: int) -> str | None:
        current = await self._eval(_CLAIM, key, holder, ttl)
        return None if current is None else str(current)

    async def release(self, key: str, holder: str) -> None:
        await self._eval(_RELEASE, key, holder)

    async def delete(self, key: str) -> None:
        try:
            await self._redis.delete(self._key(key))
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc

    async def incr(self, key: str, ttl: int) -> int:
        return int(await self._eval(_INCR, key, ttl))

    async def decr(self, key: str) -> None:
        try:
            await self._redis.decr(self._key(key))
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc
