"""Redis client factory (idempotency records, leases, host-conversation mappings).

``REDIS_URL`` with ``rediss://`` is TLS (verified against ``REDIS_SSL_CA_CERTS``, else the
system CAs); ``REDIS_PASSWORD`` overrides a password written in the URL.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.connection import parse_url

from bkn_common.infra.settings import ServiceSettings


def redis_options(settings: ServiceSettings) -> dict[str, Any]:
    """Connection-pool keyword arguments: the URL's, then the settings' (which win)."""
    options: dict[str, Any] = {
        **parse_url(settings.redis_url),
        "decode_responses": True,
        "socket_connect_timeout": 2,
        "socket_timeout": 5,
        "health_check_interval": 30,
    }
    if settings.redis_password is not None:
        options["password"] = settings.redis_password.get_secret_value()
    if settings.redis_url.startswith("rediss://"):
        options["ssl_cert_reqs"] = "required"
        if settings.redis_ssl_ca_certs:
            options["ssl_ca_certs"] = settings.redis_ssl_ca_certs
    return options


def make_redis(settings: ServiceSettings) -> Redis:
    """An asyncio Redis client for ``REDIS_URL`` (responses decoded as str)."""
    # not Redis.from_url: there the URL's password would override REDIS_PASSWORD
    return Redis.from_pool(ConnectionPool(**redis_options(settings)))


async def redis_ready(client: Redis) -> bool:
    try:
        return bool(await client.ping())
    except Exception:
        return False
