"""Real Kafka, Redis and (for the tests that ask for it) PostgreSQL for integration tests.

Order of preference: ``KAFKA_BOOTSTRAP_SERVERS`` / ``REDIS_URL`` / ``POSTGRES_URL`` from the
environment; testcontainers where a Docker daemon answers (laptops); otherwise the project's own
scripts start the local processes (what CI does). Whatever this module starts, it stops.
PostgreSQL is started only when a test needs it (:func:`real_postgres`, the ``postgres``
session fixture).
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Infra:
    kafka: str
    redis: str
    how: str


def _answers(host: str, port: int) -> bool:
    with suppress(OSError), socket.create_connection((host, port), timeout=1):
        return True
    return False


def _docker_available() -> bool:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env().ping()
        return True
    except Exception:
        return False


@contextmanager
def _testcontainers() -> Iterator[Infra]:
    from testcontainers.kafka import KafkaContainer  # type: ignore[import-untyped]
    from testcontainers.redis import RedisContainer  # type: ignore[import-untyped]

    with KafkaContainer("apache/kafka:4.1.0").with_kraft() as kafka, RedisContainer() as redis:
        host, port = redis.get_container_host_ip(), redis.get_exposed_port(6379)
        yield Infra(kafka.get_bootstrap_server(), f"redis://{host}:{port}/0", "testcontainers")


@contextmanager
def _local_processes() -> Iterator[Infra]:
    started = []
    for script, port in (("kafka.sh", 9092), ("redis.sh", 6379)):
        if not _answers("127.0.0.1", port):
            subprocess.run([str(ROOT / "scripts" / script), "start"], check=True)
            started.append(script)
    try:
        yield Infra("127.0.0.1:9092", "redis://127.0.0.1:6379/0", "local processes")
    finally:
        for script in started:
            subprocess.run([str(ROOT / "scripts" / script), "stop"], check=False)


@contextmanager
def real_infra() -> Iterator[Infra]:
    kafka, redis = os.environ.get("KAFKA_BOOTSTRAP_SERVERS"), os.environ.get("REDIS_URL")
    if kafka and redis:
        yield Infra(kafka, redis, "environment")
    elif _docker_available():
        with _testcontainers() as infra:
            yield infra
    else:
        with _local_processes() as infra:
            yield infra


@contextmanager
def real_postgres() -> Iterator[str]:
    """A PostgreSQL connection URL (postgresql://user[:password]@host:port/db)."""
    external = os.environ.get("POSTGRES_URL")
    if external:
        yield external
    elif _docker_available():
        from testcontainers.postgres import PostgresContainer  # type: ignore[import-untyped]

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
    else:
        script = str(ROOT / "scripts" / "postgres.sh")
        url = subprocess.run([script, "url"], check=True, capture_output=True, text=True).stdout.strip()
        port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        started = not _answers("127.0.0.1", port)
        if started:
            subprocess.run([script, "start"], check=True)
        try:
            yield url
        finally:
            if started:
                subprocess.run([script, "stop"], check=False)
