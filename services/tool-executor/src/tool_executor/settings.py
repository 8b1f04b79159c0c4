"""tool-executor settings (env prefix TOOL_EXECUTOR_, plus the shared infra names)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

from bkn_common.settings import CheckpointSettings


class ToolExecutorSettings(CheckpointSettings):
    model_config = SettingsConfigDict(
        env_prefix="TOOL_EXECUTOR_", extra="ignore", populate_by_name=True
    )

    service_name: str = "tool-executor"
    port: int = 30782
    default_timeout_seconds: float = 10.0
    max_output_chars: int = 8000
    max_response_bytes: int = 2 * 1024 * 1024
    # a journaled receipt is recovered this long after its tool's own timeout has passed
    receipt_recovery_grace_seconds: float = 30.0
    receipt_sweep_seconds: float = 5.0  # how often each replica looks for overdue receipts
