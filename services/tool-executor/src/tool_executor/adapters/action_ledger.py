"""The action ledger in Redis (one worker group per key prefix).

Keys: ``action:<execution_id>:lease`` (``SET NX PX``, renewed and released by a Lua script
only by its holder) and the hash ``action:<execution_id>`` with a field ``call:<i>`` per
claimed call (``HSETNX started``, then its outcome) and ``done`` (when it finished); the hash
expires :data:`RECORD_TTL_SECONDS` after its last claim or its finish.
"""

from __future__ import annotations

from datetime import UTC, datetime

from redis.asyncio import Redis

from tool_executor.domain.actions import STARTED, CallOutcome

LEASE_SECONDS = 15.0
RECORD_TTL_SECONDS = 7 * 24 * 3600


class RedisActionLedger:
    """The :class:`~tool_executor.service_layer.ports.ActionLedger` port in Redis."""

    _RENEW = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
              "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end")
    _RELEASE = ("if redis.call('get', KEYS[1]) == ARGV[1] then "
                "return redis.call('del', KEYS[1]) else return 0 end")

    def __init__(self, redis: Redis, prefix: str, lease_seconds: float = LEASE_SECONDS) -> None:
        self._redis = redis
        self._prefix = prefix
        self.lease_seconds = lease_seconds

    def _lease(self, execution_id: str) -> str:
        return f"{self._prefix}action:{execution_id}:lease"

    def _record(self, execution_id: str) -> str:
        return f"{self._prefix}action:{execution_id}"

    def _lease_ms(self) -> int:
        return int(self.lease_seconds * 1000)

    async def is_done(self, execution_id: str) -> bool:
        return bool(await self._redis.hexists(self._record(execution_id), "done"))

    async def acquire(self, execution_id: str, token: str) -> bool:
        key = self._lease(execution_id)
        return bool(await self._redis.set(key, token, nx=True, px=self._lease_ms()))

    async def renew(self, execution_id: str, token: str) -> bool:
        renewed = await self._redis.eval(
            self._RENEW, 1, self._lease(execution_id), token, str(self._lease_ms()))
        return bool(renewed)

    async def release(self, execution_id: str, token: str) -> None:
        await self._redis.eval(self._RELEASE, 1, self._lease(execution_id), token)

    async def outcomes(self, execution_id: str) -> dict[int, str]:
        fields = await self._redis.hgetall(self._record(execution_id))
        return {int(_text(k)[5:]): _text(v) for k, v in fields.items()
                if _text(k).startswith("call:")}

    async def claim(self, execution_id: str, index: int) -> bool:
        key = self._record(execution_id)
        claimed = bool(await self._redis.hsetnx(key, f"call:{index}", STARTED))
        await self._redis.expire(key, RECORD_TTL_SECONDS)
        return claimed

    async def record(self, execution_id: str, index: int, outcome: CallOutcome) -> None:
        await self._redis.hset(self._record(execution_id), f"call:{index}", outcome.dump())

    async def finish(self, execution_id: str) -> None:
        key = self._record(execution_id)
        await self._redis.hset(key, "done", datetime.now(UTC).isoformat())
        await self._redis.expire(key, RECORD_TTL_SECONDS)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
