"""trace-recorder settings (env prefix TRACE_RECORDER_, plus the shared infra names)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from bkn_common.settings import ServiceSettings
from trace_recorder.service_layer.core import Policy


class TraceRecorderSettings(ServiceSettings):
    model_config = SettingsConfigDict(
        env_prefix="TRACE_RECORDER_", extra="ignore", populate_by_name=True
    )

    service_name: str = "trace-recorder"
    port: int = 30783
    capture_enabled: bool = True
    """Policy: ``TRACE_RECORDER_CAPTURE_ENABLED=false`` keeps ids but records no operations."""
    lease_seconds: int = 300
    max_operations_per_interaction: int = 128
    redis_prefix: str = "bkn:trace:"
    idempotency_ttl_seconds: int = 7 * 24 * 3600
    host_mapping_ttl_seconds: int = 90 * 24 * 3600
    max_result_bytes: int = 256 * 1024
    pending_timeout_seconds: int = 120
    publish_timeout_seconds: float = 10.0
    lock_timeout_seconds: float = 5.0
    replay_wait_seconds: float = 10.0
    probe_timeout_seconds: float = 0.5
    finish_wait_seconds: float = 10.0
    """How long finish waits for the interaction's operations still completing (any replica);
    keep it below the gateway's ``GATEWAY_INTERNAL_TIMEOUT_SECONDS``."""
    store: Literal["sqlite", "postgresql", "memory"] = "sqlite"
    """Where the view lives: ``sqlite`` (one file, one replica), ``postgresql`` (shared by
    replicas) or ``memory`` (tests; rebuilt from offset zero at every start)."""
    sqlite_path: Path = Path(".run/trace-recorder/view.sqlite3")
    database_url: str = "postgresql://postgres@127.0.0.1:5432/postgres"
    """``TRACE_RECORDER_DATABASE_URL``: postgresql://user@host:port/db (libpq options allowed)."""
    database_password: SecretStr | None = None
    """``TRACE_RECORDER_DATABASE_PASSWORD``: overrides the URL's password."""
    database_schema: str | None = None
    """Tables in this PostgreSQL schema instead of the connection's default (``public``)."""
    span_retention_seconds: int = 7 * 24 * 3600
    prune_interval_seconds: float = 300.0
    prune_batch_size: int = 5000
    replica_index: int = 0
    """This replica's number (0-based); it consumes the partitions p with p % count == index."""
    replica_count: int = 1

    def policy(self) -> Policy:
        return Policy(
            capture_enabled=self.capture_enabled,
            lease_seconds=self.lease_seconds,
            max_operations_per_interaction=self.max_operations_per_interaction,
            idempotency_ttl_seconds=self.idempotency_ttl_seconds,
            host_mapping_ttl_seconds=self.host_mapping_ttl_seconds,
            max_result_bytes=self.max_result_bytes,
            publish_timeout_seconds=self.publish_timeout_seconds,
            lock_timeout_seconds=self.lock_timeout_seconds,
            pending_timeout_seconds=self.pending_timeout_seconds,
            finish_wait_seconds=self.finish_wait_seconds,
        )
