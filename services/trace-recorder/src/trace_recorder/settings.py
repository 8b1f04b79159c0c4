"""trace-recorder settings (env prefix TRACE_RECORDER_, plus the shared infra names)."""

from __future__ import annotations

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
        )
