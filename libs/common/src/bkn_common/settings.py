"""Settings base: every service subclasses :class:`ServiceSettings` once, with its own prefix.

Infrastructure locations use their conventional unprefixed names (``KAFKA_BOOTSTRAP_SERVERS``,
``REDIS_URL``, ``TOPIC_PREFIX``, ``OTEL_*``) so one environment points the whole mesh at
existing infrastructure. Nothing else in the code reads ``os.environ``.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _env(name: str) -> AliasChoices:
    return AliasChoices(name, name.lower())


class ServiceSettings(BaseSettings):
    """Settings every service shares."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    service_name: str = "bkn"
    host: str = "127.0.0.1"
    port: int = 0
    kafka_bootstrap_servers: str = Field(
        "127.0.0.1:9092", validation_alias=_env("KAFKA_BOOTSTRAP_SERVERS")
    )
    redis_url: str = Field("redis://127.0.0.1:6379/0", validation_alias=_env("REDIS_URL"))
    topic_prefix: str = Field("", validation_alias=_env("TOPIC_PREFIX"))
    otel_exporter_otlp_endpoint: str | None = Field(
        None, validation_alias=_env("OTEL_EXPORTER_OTLP_ENDPOINT")
    )
    otel_resource_attributes: str = Field("", validation_alias=_env("OTEL_RESOURCE_ATTRIBUTES"))
    """``key=value,key=value`` added to every span's resource (``service.name`` stays the service's)."""
    otel_sdk_disabled: bool = Field(False, validation_alias=_env("OTEL_SDK_DISABLED"))
    span_export_to_kafka: bool = Field(True, validation_alias=_env("SPAN_EXPORT_TO_KAFKA"))
    log_level: str = Field("INFO", validation_alias=_env("LOG_LEVEL"))
    # service identity on internal hops (docs/operations.md#security): signs and checks
    # every /internal/ call; the previous secret is also accepted while a rotation rolls out
    mesh_internal_secret: SecretStr | None = Field(
        None, validation_alias=_env("MESH_INTERNAL_SECRET")
    )
    mesh_internal_secret_previous: SecretStr | None = Field(
        None, validation_alias=_env("MESH_INTERNAL_SECRET_PREVIOUS")
    )
    mesh_internal_max_skew_seconds: float = Field(
        30, gt=0, validation_alias=_env("MESH_INTERNAL_MAX_SKEW_SECONDS")
    )


class CheckpointSettings(ServiceSettings):
    """Settings of a service whose store is checkpointed: ``<PREFIX>CHECKPOINT_DIR`` (empty = no
    checkpoints, replay from offset zero at every start) and
    ``<PREFIX>CHECKPOINT_INTERVAL_SECONDS`` (how often it is rewritten once caught up; it is
    also written at a clean stop)."""

    checkpoint_dir: str = ""
    checkpoint_interval_seconds: float = 60.0
