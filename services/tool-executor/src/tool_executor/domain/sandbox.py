"""What a sandboxed run may use, what came back, and why it ended (no processes here)."""

from __future__ import annotations

import shlex
import signal
from dataclasses import dataclass

# exit codes the in-sandbox guard uses for the limits it can name (adapters/sandbox_guard.py)
EXIT_MEMORY = 90
EXIT_PROCESSES = 91


@dataclass(frozen=True)
class SandboxLimits:
    cpu_seconds: int = 5
    memory_mb: int = 256
    wall_seconds: float = 10.0
    max_output_chars: int = 8000  # kept of each stream (the rest is cut and marked)
    allow_network: bool = False
    max_processes: int = 32  # processes and threads the sandbox user may have at once
    max_output_bytes: int = 1024 * 1024  # stdout + stderr; past it the run is killed
    scratch_mb: int = 64  # size of the writable scratch directory


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool
    output_exceeded: bool = False  # killed: stdout + stderr passed max_output_bytes
    signal: int | None = None  # the payload was ended by this signal (not by us)


class SandboxReason:
    """Why a sandboxed run failed, as an error code (messages in domain/errors.py)."""

    FUNCTION_FAILED = "function_failed"
    CPU_LIMIT = "sandbox_cpu_limit"
    MEMORY_LIMIT = "sandbox_memory_limit"
    PROCESS_LIMIT = "sandbox_process_limit"
    OUTPUT_LIMIT = "sandbox_output_limit"
    KILLED = "sandbox_killed"


def failure_reason(result: SandboxResult) -> str | None:
    """The reason a finished (not timed-out) run failed, or None when it exited 0 in bounds."""
    if result.output_exceeded:
        return SandboxReason.OUTPUT_LIMIT
    if result.signal in (signal.SIGXCPU, signal.SIGKILL):  # RLIMIT_CPU: soft, then hard
        return SandboxReason.CPU_LIMIT
    if result.signal is not None:
        return SandboxReason.KILLED
    if result.exit_code == EXIT_MEMORY:
        return SandboxReason.MEMORY_LIMIT
    if result.exit_code == EXIT_PROCESSES:
        return SandboxReason.PROCESS_LIMIT
    if result.exit_code != 0:
        return SandboxReason.FUNCTION_FAILED
    return None


def skill_command(entry: str, args: list[str]) -> tuple[bool, list[str]]:
    """(runs in the sandbox's Python, argv) of a skill's entry command plus its arguments."""
    command = shlex.split(entry)
    if command and command[0] in ("python", "python3"):
        return True, [*command[1:], *args]
    return False, [*command, *args]
