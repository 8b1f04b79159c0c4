"""Kafka SASL/TLS and Redis TLS settings reach the clients the services build."""

from __future__ import annotations

import ssl
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from pydantic import ValidationError
from redis.asyncio.connection import Connection, SSLConnection

from bkn_common.infra.kafka import admin_client, make_broker
from bkn_common.infra.kafka_connection import KafkaConnection, kafka_connection
from bkn_common.infra.redis import make_redis
from bkn_common.infra.settings import ServiceSettings
from tests.support.tls import TestCA

KAFKA_ENV = (
    "KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD",
    "KAFKA_SSL_CAFILE", "KAFKA_SSL_CERTFILE", "KAFKA_SSL_KEYFILE",
    "REDIS_URL", "REDIS_PASSWORD", "REDIS_SSL_CA_CERTS",
)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in KAFKA_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("tls"), "unit")


def client_of(client: AIOKafkaProducer | AIOKafkaConsumer) -> Any:
    return client.client if isinstance(client, AIOKafkaProducer) else client._client


def broker_options(settings: ServiceSettings) -> dict[str, Any]:
    """What FastStream hands aiokafka when the broker connects."""
    return make_broker(settings)._connection_kwargs  # type: ignore[no-any-return]


async def test_defaults_are_plaintext_everywhere(env: pytest.MonkeyPatch) -> None:
    settings = ServiceSettings()
    options = KafkaConnection.from_settings(settings).client_options()
    assert options == {"bootstrap_servers": "127.0.0.1:9092", "security_protocol": "PLAINTEXT"}
    assert KafkaConnection.from_settings(settings).faststream_security() is None
    redis = make_redis(settings)
    assert redis.connection_pool.connection_class is Connection
    await redis.aclose()


async def test_scram_over_tls_with_a_ca_file_reaches_every_kafka_client(
    env: pytest.MonkeyPatch, ca: TestCA
) -> None:
    env.setenv("KAFKA_BOOTSTRAP_SERVERS", "kafka-bootstrap:9093")
    env.setenv("KAFKA_SECURITY_PROTOCOL", "SASL_SSL")
    env.setenv("KAFKA_SASL_MECHANISM", "SCRAM-SHA-512")
    env.setenv("KAFKA_SASL_USERNAME", "context-loader")
    env.setenv("KAFKA_SASL_PASSWORD", "s3cret")
    env.setenv("KAFKA_SSL_CAFILE", str(ca.cert))
    settings = ServiceSettings()
    connection = KafkaConnection.from_settings(settings)
    assert "s3cret" not in repr(connection) and "s3cret" not in repr(settings)

    producer = AIOKafkaProducer(**connection.client_options())
    consumer = AIOKafkaConsumer(**connection.client_options())
    for client in (client_of(producer), client_of(consumer)):
        assert client._security_protocol == "SASL_SSL"
        assert client._sasl_mechanism == "SCRAM-SHA-512"
        assert client._sasl_plain_username == "context-loader"
        assert client._sasl_plain_password == "s3cret"
        context = client._ssl_context
        assert isinstance(context, ssl.SSLContext)
        assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
        assert [c["subject"] for c in context.get_ca_certs()] == [((("commonName", "unit CA"),),)]
    admin = admin_client(connection)
    assert isinstance(admin, AIOKafkaAdminClient)
    assert admin._client._security_protocol == "SASL_SSL"
    assert admin._client._sasl_mechanism == "SCRAM-SHA-512"
    await producer.stop()
    await consumer.stop()
    await admin.close()

    config = broker_options(settings)
    assert config["bootstrap_servers"] == ["kafka-bootstrap:9093"]
    assert config["security_protocol"] == "SASL_SSL"
    assert config["sasl_mechanism"] == "SCRAM-SHA-512"
    assert config["sasl_plain_username"] == "context-loader"
    assert config["sasl_plain_password"] == "s3cret"
    assert isinstance(config["ssl_context"], ssl.SSLContext)


@pytest.mark.parametrize(("mechanism", "protocol"), [("PLAIN", "SASL_PLAINTEXT"), ("SCRAM-SHA-256", "SASL_SSL")])
def test_each_sasl_mechanism_reaches_faststream(
    env: pytest.MonkeyPatch, mechanism: str, protocol: str
) -> None:
    env.setenv("KAFKA_SECURITY_PROTOCOL", protocol)
    env.setenv("KAFKA_SASL_MECHANISM", mechanism)
    env.setenv("KAFKA_SASL_USERNAME", "u")
    env.setenv("KAFKA_SASL_PASSWORD", "p")
    config = broker_options(ServiceSettings())
    assert (config["security_protocol"], config["sasl_mechanism"]) == (protocol, mechanism)
    assert (config["ssl_context"] is not None) == (protocol == "SASL_SSL")


def test_mutual_tls_loads_the_client_pair(env: pytest.MonkeyPatch, ca: TestCA) -> None:
    leaf = ca.issue("context-loader-user", server=False)
    env.setenv("KAFKA_SECURITY_PROTOCOL", "SSL")
    env.setenv("KAFKA_SSL_CAFILE", str(ca.cert))
    env.setenv("KAFKA_SSL_CERTFILE", str(leaf.cert))
    env.setenv("KAFKA_SSL_KEYFILE", str(leaf.key))
    options = KafkaConnection.from_settings(ServiceSettings()).client_options()
    assert options["security_protocol"] == "SSL"
    assert "sasl_mechanism" not in options
    assert isinstance(options["ssl_context"], ssl.SSLContext)


def test_a_key_that_does_not_match_the_certificate_is_refused_when_the_client_is_built(
    env: pytest.MonkeyPatch, ca: TestCA
) -> None:
    first, second = ca.issue("one", server=False), ca.issue("two", server=False)
    env.setenv("KAFKA_SECURITY_PROTOCOL", "SSL")
    env.setenv("KAFKA_SSL_CERTFILE", str(first.cert))
    env.setenv("KAFKA_SSL_KEYFILE", str(second.key))
    with pytest.raises(ssl.SSLError):
        KafkaConnection.from_settings(ServiceSettings()).client_options()


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "KAFKA_SASL_USERNAME": "u"}, "KAFKA_SASL_PASSWORD"),
        ({"KAFKA_SECURITY_PROTOCOL": "PLAINTEXT", "KAFKA_SSL_CAFILE": "/ca.crt"}, "KAFKA_SECURITY_PROTOCOL"),
        ({"KAFKA_SECURITY_PROTOCOL": "SSL", "KAFKA_SSL_CERTFILE": "/c.crt"}, "KAFKA_SSL_KEYFILE"),
        ({"KAFKA_SECURITY_PROTOCOL": "TLS"}, "KAFKA_SECURITY_PROTOCOL"),
        ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "GSSAPI"}, "KAFKA_SASL_MECHANISM"),
        ({"REDIS_SSL_CA_CERTS": "/ca.crt"}, "rediss://"),
    ],
)
def test_inconsistent_settings_are_refused_at_start_naming_the_variable(
    env: pytest.MonkeyPatch, variables: dict[str, str], named: str
) -> None:
    for name, value in variables.items():
        env.setenv(name, value)
    with pytest.raises(ValidationError, match=named):
        ServiceSettings()


async def test_rediss_url_with_a_ca_file_and_password_builds_a_verifying_tls_client(
    env: pytest.MonkeyPatch, ca: TestCA
) -> None:
    env.setenv("REDIS_URL", "rediss://:from-url@redis.example:6380/2")
    env.setenv("REDIS_PASSWORD", "from-secret")
    env.setenv("REDIS_SSL_CA_CERTS", str(ca.cert))
    settings = ServiceSettings()
    assert "from-secret" not in repr(settings)
    redis = make_redis(settings)
    pool = redis.connection_pool
    assert pool.connection_class is SSLConnection
    kwargs = pool.connection_kwargs
    assert (kwargs["host"], kwargs["port"], kwargs["db"]) == ("redis.example", 6380, 2)
    assert kwargs["password"] == "from-secret"  # the Secret wins over the URL
    assert kwargs["ssl_ca_certs"] == str(ca.cert)
    assert kwargs["ssl_cert_reqs"] == "required"
    await redis.aclose()


async def test_a_password_in_the_url_is_kept_when_no_redis_password_is_set(env: pytest.MonkeyPatch) -> None:
    env.setenv("REDIS_URL", "redis://:in-url@127.0.0.1:6379/0")
    redis = make_redis(ServiceSettings())
    assert redis.connection_pool.connection_kwargs["password"] == "in-url"
    await redis.aclose()


def test_bare_servers_and_connections_normalise_to_a_connection(env: pytest.MonkeyPatch) -> None:
    assert kafka_connection("h:1") == KafkaConnection("h:1")
    secured = KafkaConnection("h:1", security_protocol="SASL_PLAINTEXT", sasl_username="u", sasl_password="p")
    assert kafka_connection(secured) is secured
    assert kafka_connection(ServiceSettings(kafka_bootstrap_servers="h:2")).bootstrap_servers == "h:2"
