"""A real TLS Redis (redis-server with a tls-port, a CA made by the test) reached through the
settings every service reads: ``REDIS_URL=rediss://...``, ``REDIS_PASSWORD``, ``REDIS_SSL_CA_CERTS``."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bkn_common.infra.redis import make_redis, redis_ready
from bkn_common.infra.settings import ServiceSettings
from tests.support.tls import TestCA

PASSWORD = "tls-test-password"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def tls_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, TestCA]]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is required (scripts/redis.sh installs it)")
    folder = tmp_path_factory.mktemp("redis-tls")
    ca = TestCA(folder, "redis")
    leaf = ca.issue("redis-server")
    port = free_port()
    process = subprocess.Popen(
        [server, "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
         "--tls-cert-file", str(leaf.cert), "--tls-key-file", str(leaf.key),
         "--tls-ca-cert-file", str(ca.cert), "--tls-auth-clients", "no",
         "--requirepass", PASSWORD, "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=(folder / "redis.log").open("wb"), stderr=subprocess.STDOUT,
    )
    try:
        wait_listening(port, process)
        yield port, ca
    finally:
        process.terminate()
        process.wait(timeout=20)


def wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until the TLS port accepts connections (pacing by waiting on the process itself)."""
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            pass
        try:
            process.wait(timeout=0.05)
            raise RuntimeError(f"redis-server exited with {process.returncode}")
        except subprocess.TimeoutExpired:
            continue
    raise RuntimeError("redis-server did not listen")


def settings(port: int, **overrides: object) -> ServiceSettings:
    return ServiceSettings(redis_url=f"rediss://127.0.0.1:{port}/0", **overrides)  # type: ignore[arg-type]


async def answers(config: ServiceSettings) -> bool:
    client = make_redis(config)
    try:
        return await redis_ready(client)
    finally:
        await client.aclose()


async def test_rediss_with_the_ca_and_password_from_settings_round_trips(tls_redis: tuple[int, TestCA]) -> None:
    port, ca = tls_redis
    client = make_redis(settings(port, redis_password=PASSWORD, redis_ssl_ca_certs=str(ca.cert)))
    try:
        assert await client.set("tls-probe", "over tls")
        assert await client.get("tls-probe") == "over tls"
        info = await client.connection_pool.get_connection()
        try:
            assert info.__class__.__name__ == "SSLConnection"
        finally:
            await client.connection_pool.release(info)
    finally:
        await client.aclose()


async def test_a_server_certificate_from_another_ca_is_refused(
    tls_redis: tuple[int, TestCA], tmp_path: Path
) -> None:
    port, _ = tls_redis
    stranger = TestCA(tmp_path, "stranger")
    assert not await answers(settings(port, redis_password=PASSWORD, redis_ssl_ca_certs=str(stranger.cert)))


async def test_without_the_password_the_server_refuses(tls_redis: tuple[int, TestCA]) -> None:
    port, ca = tls_redis
    assert not await answers(settings(port, redis_ssl_ca_certs=str(ca.cert)))
    assert await answers(settings(port, redis_password=PASSWORD, redis_ssl_ca_certs=str(ca.cert)))


async def test_plain_redis_url_to_the_tls_port_does_not_pass_readiness(tls_redis: tuple[int, TestCA]) -> None:
    port, _ = tls_redis
    plain = ServiceSettings(redis_url=f"redis://127.0.0.1:{port}/0", redis_password=PASSWORD)  # type: ignore[arg-type]
    assert not await asyncio.wait_for(answers(plain), 20)
