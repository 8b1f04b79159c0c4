"""trace-recorder settings (env prefix TRACE_RECORDER_, plus the shared infra names)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import ServiceSettings
from trace_recorder.service_layer.policy import Policy, PolicyFields


class TraceRecorderSettings(ServiceSettings, PolicyFields):
    """The shared infra settings, the handlers' policy (:mod:`~trace_recorder.service_layer.policy`)
    and the store's."""

    model_config = SettingsConfigDict(
        env_prefix="TRACE_RECORDER_", extra="ignore", populate_by_name=True
    )

    service_name: str = "trace-recorder"
    port: int = 30783
    redis_prefix: str = "bkn:trace:"
    """Prefix of trace-recorder's Redis keys (the chart sets ``bkn:<topicPrefix>trace:``)."""
    replay_wait_seconds: float = 10.0
    """How long a lifecycle call waits for the view to catch up after a start before it is refused."""
    probe_timeout_seconds: float = 0.5
    """Timeout of each readiness probe of Redis and the store."""
    store: Literal["sqlite", "postgresql", "memory"] = "sqlite"
    """Where the view lives: ``sqlite`` (one file, one replica), ``postgresql`` (shared by
    replicas) or ``memory`` (tests; rebuilt from offset zero at every start)."""
    sqlite_path: Path = Path(".run/trace-recorder/view.sqlite3")
    """The SQLite view's file (store ``sqlite``)."""
    database_url: str = "postgresql://postgres@127.0.0.1:5432/postgres"
    """``TRACE_RECORDER_DATABASE_URL``: postgresql://user@host:port/db (libpq options allowed)."""
    database_password: SecretStr | None = None
    """``TRACE_RECORDER_DATABASE_PASSWORD``: overrides the URL's password."""
    database_schema: str | None = None
    """Tables in this PostgreSQL schema instead of the connection's default (``public``)."""
    span_retention_seconds: int = 7 * 24 * 3600
    """Spans older than this are pruned from the view."""
    prune_interval_seconds: float = 300.0
    """How often old spans are pruned."""
    prune_batch_size: int = 5000
    """Spans deleted per pruning statement."""
    replica_index: int = 0
    """This replica's number (0-based); it consumes the partitions p with p % count == index."""
    replica_count: int = 1
    """How many replicas share the partitions (store ``postgresql``)."""
    fetch_max_wait_ms: int | None = Field(None, gt=0, le=30000)
    """``TRACE_RECORDER_FETCH_MAX_WAIT_MS``: how long the broker may hold the projection's
    fetch (unset: ``KAFKA_FETCH_MAX_WAIT_MS``)."""
    fetch_min_bytes: int = Field(1, ge=1)
    """``TRACE_RECORDER_FETCH_MIN_BYTES``: the broker answers the projection's fetch once this
    much is there or the wait is over."""

    seal_sweep_seconds: float = Field(2.0, gt=0)
    """``TRACE_RECORDER_SEAL_SWEEP_SECONDS``: how often finished interactions are sealed (their
    records hash-chained, the head signed with the seal key of ``PROVENANCE_KEYS_FILE``)."""
    seal_window_seconds: float = Field(900.0, gt=0)
    """``TRACE_RECORDER_SEAL_WINDOW_SECONDS``: at start, interactions finished this recently are
    looked at for records not sealed yet (while running, every record folded is noted)."""

    def policy(self) -> Policy:
        return Policy.of(self)
