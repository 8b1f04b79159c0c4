"""tool-executor settings (env prefix TOOL_EXECUTOR_, plus the shared infra names)."""

from __future__ import annotations

from typing import Literal

from pydantic_settings import SettingsConfigDict

from bkn_common.infra.settings import CheckpointSettings


class ToolExecutorSettings(CheckpointSettings):
    model_config = SettingsConfigDict(
        env_prefix="TOOL_EXECUTOR_", extra="ignore", populate_by_name=True
    )

    service_name: str = "tool-executor"
    port: int = 30782
    default_timeout_seconds: float = 10.0
    """A tool call's wall clock when its definition names none."""
    max_output_chars: int = 8000
    """Characters kept of each output stream of a sandboxed run (the rest is cut and marked)."""
    max_response_bytes: int = 2 * 1024 * 1024
    """The largest upstream answer read; a larger one is refused."""
    upstream_keepalive_seconds: float = 4.0
    """How long an idle connection to an upstream stays in the pool: less than the 5 s uvicorn,
    Node.js and Apache keep one open, so a call is never sent on a connection the upstream is
    closing (a POST that fails so is not resent: it may have run)."""
    # a journaled receipt is recovered this long after its tool's own timeout has passed
    receipt_recovery_grace_seconds: float = 30.0
    receipt_sweep_seconds: float = 5.0  # how often each replica looks for overdue receipts
    # the sandbox of function tools and skills (docs/architecture.md, "The sandbox boundary"):
    # bwrap = kernel namespaces (bubblewrap; the service refuses to start without it),
    # process = a plain child process with rlimits (development only, not a boundary)
    sandbox: Literal["bwrap", "process"] = "bwrap"
    sandbox_bwrap_path: str = "bwrap"
    """The bubblewrap program (a name on PATH or a path)."""
    sandbox_python: str = ""  # the interpreter payloads run in; empty = this service's own
    sandbox_max_concurrent: int = 8  # runs at once; more calls wait for a slot
    sandbox_uid_base: int = 0  # run as root: first payload uid (one per slot); 0 = per process
    sandbox_max_processes: int = 32
    """Processes and threads one sandboxed run may have at once (RLIMIT_NPROC inside the sandbox)."""
    sandbox_max_output_bytes: int = 1024 * 1024  # stdout + stderr; past it the run is killed
    sandbox_scratch_mb: int = 64
    """Size of the run's writable /scratch tmpfs."""
    # the seccomp filter of every bwrap run (adapters/seccomp_filter.py); false only where the
    # machine's architecture has no syscall table there (x86_64 and aarch64 have)
    sandbox_seccomp: bool = True
    sandbox_check_timeout_seconds: float = 120.0  # the start-up probe; past it SandboxUnavailable
    skill_cpu_seconds: int = 10
    """CPU seconds a skill run may use."""
    skill_memory_mb: int = 512
    """Address space of each process of a skill run."""
    skill_wall_seconds: float = 30.0
    """Wall clock of a skill run."""
