"""Redis client factory (idempotency records, leases, host-conversation mappings)."""

from __future__ import annotations

from redis.asyncio import Redis

from bkn_common.settings import ServiceSettings


def make_redis(settings: ServiceSettings) -> Redis:
    """An asyncio Redis client for ``REDIS_URL`` (responses decoded as str)."""
    return Redis.from_url(
        settings.redis_url,
        decode_responses=True,
        socket_connect_timeout=2,
        socket_timeout=5,
        health_check_interval=30,
    )


async def redis_ready(client: Redis) -> bool:
    try:
        return bool(await client.ping())
    except Exception:
        return False
