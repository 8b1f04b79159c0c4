"""ontology-query settings (env prefix ONTOLOGY_QUERY_, plus the shared infra names)."""

from __future__ import annotations

from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import CheckpointSettings


class OntologyQuerySettings(CheckpointSettings):
    model_config = SettingsConfigDict(
        env_prefix="ONTOLOGY_QUERY_", extra="ignore", populate_by_name=True
    )

    service_name: str = "ontology-query"
    port: int = 30784
    # the data tools (run_sql): where the engine keeps its database file (empty: a temporary
    # folder), the row cap of one answer, and the engine's worker threads
    data_dir: str = ""
    sql_max_rows: int = 10_000
    """Rows run_sql returns at most; more are cut and marked."""
    sql_threads: int = 2
    """DuckDB threads of run_sql."""
