"""Settings base: every service subclasses :class:`ServiceSettings` once, with its own prefix.

Infrastructure locations use their conventional unprefixed names (``KAFKA_BOOTSTRAP_SERVERS``,
``REDIS_URL``, ``TOPIC_PREFIX``, ``OTEL_*``) so one environment points the whole mesh at
existing infrastructure. Kafka security (``KAFKA_SECURITY_PROTOCOL``, ``KAFKA_SASL_*``,
``KAFKA_SSL_*``) and Redis TLS/auth (``rediss://`` URLs, ``REDIS_PASSWORD``,
``REDIS_SSL_CA_CERTS``) are turned into client options by ``bkn_common.infra.kafka_connection`` and
``bkn_common.infra.redis``. Nothing else in the code reads ``os.environ``.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def _env(name: str) -> AliasChoices:
    return AliasChoices(name, name.lower())


class ServiceSettings(BaseSettings):
    """Settings every service shares."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    service_name: str = "bkn"
    """The name in logs, spans (``service.name``) and metrics."""
    host: str = "127.0.0.1"
    """The address the HTTP server binds (``0.0.0.0`` in containers)."""
    port: int = 0
    """The HTTP port."""
    kafka_bootstrap_servers: str = Field(
        "127.0.0.1:9092", validation_alias=_env("KAFKA_BOOTSTRAP_SERVERS")
    )
    """The Kafka brokers, ``host:port[,host:port]``."""
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = Field(
        "PLAINTEXT", validation_alias=_env("KAFKA_SECURITY_PROTOCOL")
    )
    """How clients talk to Kafka: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL."""
    kafka_sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] = Field(
        "PLAIN", validation_alias=_env("KAFKA_SASL_MECHANISM")
    )
    """The SASL mechanism with a SASL_* protocol."""
    kafka_sasl_username: str | None = Field(None, validation_alias=_env("KAFKA_SASL_USERNAME"))
    """The SASL user (needed by SASL_* protocols)."""
    kafka_sasl_password: SecretStr | None = Field(None, validation_alias=_env("KAFKA_SASL_PASSWORD"))
    """The SASL user's password."""
    # PEM files: the CA that signed the brokers' certificates (system CAs when unset) and, for
    # mutual TLS, the client certificate and key (a Strimzi TLS KafkaUser's user.crt/user.key)
    kafka_ssl_cafile: str | None = Field(None, validation_alias=_env("KAFKA_SSL_CAFILE"))
    """PEM file of the CA that signed the brokers' certificates (system CAs when unset)."""
    kafka_ssl_certfile: str | None = Field(None, validation_alias=_env("KAFKA_SSL_CERTFILE"))
    """PEM client certificate for mutual TLS (a Strimzi TLS KafkaUser's user.crt), with KAFKA_SSL_KEYFILE."""
    kafka_ssl_keyfile: str | None = Field(None, validation_alias=_env("KAFKA_SSL_KEYFILE"))
    """PEM private key of KAFKA_SSL_CERTFILE (user.key)."""
    redis_url: str = Field("redis://127.0.0.1:6379/0", validation_alias=_env("REDIS_URL"))
    """Redis for idempotency records, leases, rate limits and journals; ``rediss://`` for TLS."""
    # overrides a password in REDIS_URL; the CA file applies to rediss:// (TLS) URLs only
    redis_password: SecretStr | None = Field(None, validation_alias=_env("REDIS_PASSWORD"))
    """Overrides a password in REDIS_URL."""
    redis_ssl_ca_certs: str | None = Field(None, validation_alias=_env("REDIS_SSL_CA_CERTS"))
    """PEM CA file for a ``rediss://`` REDIS_URL."""
    topic_prefix: str = Field("", validation_alias=_env("TOPIC_PREFIX"))
    """Prepended to every topic, consumer group and Redis key prefix (tenants sharing a cluster)."""
    otel_exporter_otlp_endpoint: str | None = Field(
        None, validation_alias=_env("OTEL_EXPORTER_OTLP_ENDPOINT")
    )
    """An OTLP/HTTP collector that also receives the spans (unset: none)."""
    otel_resource_attributes: str = Field("", validation_alias=_env("OTEL_RESOURCE_ATTRIBUTES"))
    """``key=value,key=value`` added to every span's resource (``service.name`` stays the service's)."""
    otel_sdk_disabled: bool = Field(False, validation_alias=_env("OTEL_SDK_DISABLED"))
    """``true`` records no spans at all."""
    span_export_to_kafka: bool = Field(True, validation_alias=_env("SPAN_EXPORT_TO_KAFKA"))
    """Publish finished spans to Kafka for trace-recorder (the trace records are built from them)."""
    kafka_fetch_max_wait_ms: int = Field(500, gt=0, le=30000, validation_alias=_env("KAFKA_FETCH_MAX_WAIT_MS"))
    """How long the broker holds a projection's fetch when it has nothing new (a record that
    arrives ends the wait at once, so this sets the idle polling rate, not visibility)."""
    log_level: str = Field("INFO", validation_alias=_env("LOG_LEVEL"))
    """Python log level: DEBUG, INFO, WARNING, ERROR."""
    stop_seconds: float = Field(1.5, gt=0, le=30, validation_alias=_env("STOP_SECONDS"))
    """How long a service may take to stop after SIGTERM or SIGINT, in any state (starting,
    waiting for Kafka, serving, draining): past it the process exits at once. Everything a
    stop would finish is crash-safe (journaled receipts, committed offsets), so a cut-short stop
    loses nothing; a pod is never left in Terminating."""
    http_keepalive_seconds: int = Field(75, ge=1, validation_alias=_env("HTTP_KEEPALIVE_SECONDS"))
    """How long the service keeps an idle client connection open (uvicorn's 5 s otherwise).
    Longer than any client keeps one in its pool (the gateway's 60 s, a load balancer's 60 s
    idle timeout): a request a client sends on a connection just as the server closes it fails,
    and a POST is not resent (it may have run), so the client must be the one to close."""
    # service identity on internal hops (docs/operations.md#security): signs and checks
    # every /internal/ call; the previous secret is also accepted while a rotation rolls out
    mesh_internal_secret: SecretStr | None = Field(
        None, validation_alias=_env("MESH_INTERNAL_SECRET")
    )
    """The deployment's internal secret: signs and checks every /internal/ call between services (16+ characters)."""
    mesh_internal_secret_previous: SecretStr | None = Field(
        None, validation_alias=_env("MESH_INTERNAL_SECRET_PREVIOUS")
    )
    """The previous internal secret, still accepted while a rotation rolls out."""
    mesh_internal_max_skew_seconds: float = Field(
        30, gt=0, validation_alias=_env("MESH_INTERNAL_MAX_SKEW_SECONDS")
    )
    """How far a signed internal call's timestamp may differ from this clock."""
    provenance_keys_file: str = Field("", validation_alias=_env("PROVENANCE_KEYS_FILE"))
    """The deployment's Ed25519 keyring (a JWKS, ``bkn_common.provenance.keys``): tool-executor
    signs receipts and trace-recorder seals interactions with it. Empty: nothing is signed."""

    @model_validator(mode="after")
    def _connections_consistent(self) -> Self:
        """Refuse, at start, combinations a client would only fail on later (or ignore)."""
        if self.kafka_security_protocol.startswith("SASL_") and not (
            self.kafka_sasl_username and self.kafka_sasl_password
        ):
            raise ValueError(
                f"KAFKA_SECURITY_PROTOCOL={self.kafka_security_protocol} needs "
                "KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"
            )
        tls_files = (self.kafka_ssl_cafile, self.kafka_ssl_certfile, self.kafka_ssl_keyfile)
        if any(tls_files) and not self.kafka_security_protocol.endswith("SSL"):
            raise ValueError(
                "KAFKA_SSL_CAFILE/CERTFILE/KEYFILE need KAFKA_SECURITY_PROTOCOL SSL or SASL_SSL"
            )
        if bool(self.kafka_ssl_certfile) != bool(self.kafka_ssl_keyfile):
            raise ValueError("KAFKA_SSL_CERTFILE and KAFKA_SSL_KEYFILE go together")
        if self.redis_ssl_ca_certs and not self.redis_url.startswith("rediss://"):
            raise ValueError("REDIS_SSL_CA_CERTS needs a rediss:// REDIS_URL (TLS)")
        return self


class CheckpointSettings(ServiceSettings):
    """Settings of a service whose store is checkpointed: ``<PREFIX>CHECKPOINT_DIR`` (empty = no
    checkpoints, replay from offset zero at every start) and
    ``<PREFIX>CHECKPOINT_INTERVAL_SECONDS`` (how often it is rewritten once caught up; it is
    also written at a clean stop)."""

    checkpoint_dir: str = ""
    """Folder of this service's checkpoint (empty: none; the store replays from offset zero at every start)."""
    checkpoint_interval_seconds: float = 60.0
    """How often the checkpoint is rewritten once caught up (also at a clean stop)."""
