"""clctl settings (environment: KAFKA_BOOTSTRAP_SERVERS, TOPIC_PREFIX, ...)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import ServiceSettings


class ClctlSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="CLCTL_", extra="ignore", populate_by_name=True)

    service_name: str = "clctl"
    kb_max_file_bytes: int = 1_048_576
    """``clctl kb apply`` refuses a file larger than this (CLCTL_KB_MAX_FILE_BYTES)."""
    run_dir: str = ""
    """``CLCTL_RUN_DIR``: the dev mesh's run folder (``clctl.run_folder``); empty = the first
    ``.run/`` with an ``endpoints.json`` in the current folder or above it."""
