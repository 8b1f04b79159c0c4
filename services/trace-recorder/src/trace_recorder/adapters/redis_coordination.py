"""Coordination on Redis: prefixed keys, leases and locks as atomic scripts.

The scripts are registered once and run with EVALSHA (the text is sent again only when the
server does not know it, e.g. after a restart).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import RedisError

from trace_recorder.service_layer.ports import CoordinationUnavailable, Deferred, OperationClaim

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
# begin of an operation; see Coordination.claim_operation. KEYS: in-flight marker, lease,
# counter, deferred record, deferred index. ARGV: input hash, in-flight TTL, lease holder,
# lease TTL, counter TTL, limit, operations in the store, '1' when the store holds the
# operation, its input hash there, the deferred record ('' for none), its delay, TTL, member.
_CLAIM_OPERATION = """
local function lease()
  local current = redis.call('GET', KEYS[2])
  if (not current) or current == ARGV[3] then
    redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
    return nil
  end
  return current
end
local stored = ARGV[8] == '1'
if (not stored) and redis.call('EXISTS', KEYS[1]) == 0 then
  local limit, counted = tonumber(ARGV[6]), tonumber(ARGV[7])
  if counted >= limit then return {'limit'} end
  local holder = lease()
  if holder then return {'superseded', holder} end
  local n = redis.call('INCR', KEYS[3])
  if n == 1 then redis.call('EXPIRE', KEYS[3], ARGV[5]) end
  if math.max(n, counted + 1) > limit then
    redis.call('DECR', KEYS[3])
    return {'limit'}
  end
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  if ARGV[10] ~= '' then
    local t = redis.call('TIME')
    local due = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[11])
    redis.call('SET', KEYS[4], ARGV[10], 'EX', ARGV[12])
    redis.call('ZADD', KEYS[5], string.format('%.6f', due), ARGV[13])
  end
  return {'new', n}
end
local recorded
if stored then
  redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2])
  recorded = ARGV[9]
else
  recorded = redis.call('GET', KEYS[1])
end
if recorded ~= ARGV[1] then return {'conflict', recorded} end
local holder = lease()
if holder then return {'superseded', holder, recorded} end
return {'existing', recorded}
"""

# deferred records that fell due (ARGV[4] '1': all of them); see Coordination.take_due.
# KEYS: the index. ARGV: the records' key prefix, lease seconds, limit, everything.
_TAKE_DUE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local upto = string.format('%.6f', now)
if ARGV[4] == '1' then upto = '+inf' end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', upto, 'LIMIT', 0, tonumber(ARGV[3]))
local taken = {}
for _, member in ipairs(due) do
  local record = redis.call('GET', ARGV[1] .. member)
  if record then
    redis.call('ZADD', KEYS[1], string.format('%.6f', now + tonumber(ARGV[2])), member)
    table.insert(taken, member)
    table.insert(taken, record)
  else
    redis.call('ZREM', KEYS[1], member)
  end
end
return taken
"""
_FORGET = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisCoordination:
    """The :class:`~trace_recorder.service_layer.ports.Coordination` port on Redis."""

    def __init__(self, client: Redis, prefix: str, lock_ttl_seconds: int = 15) -> None:
        self._redis = client
        self._prefix = prefix
        self._lock_ttl = lock_ttl_seconds
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)
        self._incr = client.register_script(_INCR)
        self._claim_operation = client.register_script(_CLAIM_OPERATION)
        self._take_due = client.register_script(_TAKE_DUE)
        self._forget = client.register_script(_FORGET)

    def _key(self, key: str) -> str:
        return self._prefix + key

    async def _run(self, script: AsyncScript, keys: list[str], *args: Any) -> Any:
        try:
            return await script(keys=[self._key(k) for k in keys], args=args)
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
        current = await self._run(self._claim, [key], holder, ttl)
        return None if current is None else _text(current)

    async def release(self, key: str, holder: str) -> None:
        await self._run(self._release, [key], holder)

    async def delete(self, key: str) -> None:
        try:
            await self._redis.delete(self._key(key))
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc

    async def incr(self, key: str, ttl: int) -> int:
        return int(await self._run(self._incr, [key], ttl))

    async def decr(self, key: str) -> None:
        try:
            await self._redis.decr(self._key(key))
        except RedisError as exc:
            raise CoordinationUnavailable(str(exc)) from exc

    async def claim_operation(
        self, key: str, input_hash: str, *, in_flight_ttl: int, lease_key: str,
        lease_holder: str, lease_ttl: int, counter_key: str, counter_ttl: int, limit: int,
        stored_count: int, stored_hash: str | None, deferred: Deferred | None = None,
    ) -> OperationClaim:
        later = deferred or Deferred("", "", "", "", 0.0, 0)
        reply = await self._run(
            self._claim_operation, [key, lease_key, counter_key, later.key, later.index],
            input_hash, in_flight_ttl, lease_holder, lease_ttl, counter_ttl, limit, stored_count,
            "0" if stored_hash is None else "1", stored_hash or "",
            later.record, repr(later.delay_seconds), later.ttl, later.member)
        status = _text(reply[0])
        if status == "new":
            return OperationClaim("new", count=int(reply[1]))
        if status == "limit":
            return OperationClaim("limit")
        if status == "superseded":
            recorded = _text(reply[2]) if len(reply) > 2 else None
            return OperationClaim("superseded", recorded_hash=recorded, holder=_text(reply[1]))
        if status == "conflict":
            return OperationClaim("conflict", recorded_hash=_text(reply[1]))
        if status == "existing":
            return OperationClaim("existing", recorded_hash=_text(reply[1]))
        raise CoordinationUnavailable(f"unexpected reply from the claim script: {reply!r}")

    async def take_due(
        self, index: str, key_prefix: str, *, lease_seconds: int, limit: int,
        everything: bool = False,
    ) -> list[tuple[str, str]]:
        reply = await self._run(self._take_due, [index], self._key(key_prefix), lease_seconds,
                                limit, "1" if everything else "0")
        return [(_text(reply[i]), _text(reply[i + 1])) for i in range(0, len(reply), 2)]

    async def forget(self, index: str, key: str, member: str) -> None:
        await self._run(self._forget, [index, key], member)
