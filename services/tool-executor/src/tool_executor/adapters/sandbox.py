"""TOOL_EXECUTOR_SANDBOX=process: a plain child process with rlimits and the Python guard.

For development machines without bubblewrap only. It is not a security boundary: the
payload shares the host's network, filesystem and process table, and native code (ctypes)
gets past the Python network guard. The kernel-enforced sandbox is adapters/bwrap_sandbox.py.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from functools import partial

from tool_executor.adapters.sandbox_run import (
    GUARD,
    GuardedSandbox,
    payload_env,
    run_contained,
    set_limits,
)
from tool_executor.domain.sandbox import SandboxLimits, SandboxResult


def _signal_of(returncode: int) -> int | None:
    return -returncode if returncode < 0 else None


class ProcessSandbox(GuardedSandbox):
    def __init__(self, python: str = sys.executable, max_concurrent: int = 8) -> None:
        self._python = python
        self._slots = asyncio.Semaphore(max_concurrent)

    async def _run(self, mode: str, stdin: bytes, limits: SandboxLimits) -> SandboxResult:
        async with self._slots:
            with tempfile.TemporaryDirectory(prefix="bkn-sandbox-") as scratch:
                return await run_contained(
                    [self._python, "-I", str(GUARD), mode], stdin, limits,
                    env=payload_env(scratch), cwd=scratch, preexec=partial(set_limits, limits),
                    signal_of=_signal_of,
                )
