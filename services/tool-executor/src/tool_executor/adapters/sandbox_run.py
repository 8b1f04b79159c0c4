"""Start a sandboxed command, feed its stdin, keep bounded output, kill it as a whole.

Shared by every sandbox adapter: they differ in the command line (what isolates the
payload), not in how it is run. rlimits are set in the child before it executes the
command and are inherited by everything the payload starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tool_executor.domain.sandbox import SandboxLimits, SandboxResult, skill_command

GUARD = Path(__file__).with_name("sandbox_guard.py")

CHUNK = 64 * 1024
FILE_SIZE_LIMIT = 16 * 1024 * 1024


def set_limits(limits: SandboxLimits) -> None:
    """rlimits of the calling process (run in the child between fork and exec).

    Not RLIMIT_NPROC: the kernel counts it per uid of the user namespace the process is in, so
    set here (before bwrap makes the sandbox's user namespace) it would count every process of
    the service's uid on the node, other containers' included. The guard sets it inside the
    sandbox, where only the run's own processes count (``max_processes`` in its request)."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class _Output:
    """stdout and stderr of one run: the first ``keep`` bytes of each, the total of both."""

    keep: int
    budget: int
    total: int = 0
    over: asyncio.Event = field(default_factory=asyncio.Event)

    async def drain(self, stream: asyncio.StreamReader) -> tuple[bytes, bool]:
        kept = bytearray()
        cut = False
        while chunk := await stream.read(CHUNK):
            self.total += len(chunk)
            if self.total > self.budget:
                self.over.set()
            room = self.keep - len(kept)
            if room > 0:
                kept += chunk[:room]
            cut = cut or len(chunk) > room
        return bytes(kept), cut


def _text(data: bytes, cut: bool, limit: int) -> tuple[str, bool]:
    decoded = data.decode(errors="replace")
    return (decoded[:limit], True) if cut or len(decoded) > limit else (decoded, False)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


async def _feed(process: asyncio.subprocess.Process, data: bytes) -> None:
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.write(data)
        await process.stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        process.stdin.close()


async def run_contained(
    argv: list[str],
    stdin: bytes,
    limits: SandboxLimits,
    *,
    env: Mapping[str, str],
    cwd: str | None = None,
    preexec: Callable[[], None] | None = None,
    signal_of: Callable[[int], int | None],
    pass_fds: Sequence[int] = (),
) -> SandboxResult:
    """Run ``argv`` in a new session; killed (the whole group) at the wall-clock limit or when
    stdout + stderr pass ``limits.max_output_bytes``. ``signal_of`` turns the exit status
    into the signal that ended the payload, if one did."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        preexec_fn=preexec,
        start_new_session=True,
        pass_fds=tuple(pass_fds),
    )
    stdout_pipe, stderr_pipe = process.stdout, process.stderr
    assert stdout_pipe is not None and stderr_pipe is not None
    output = _Output(keep=limits.max_output_chars * 4, budget=limits.max_output_bytes)

    async def finish() -> tuple[tuple[bytes, bool], tuple[bytes, bool]]:
        out, err, _ = await asyncio.gather(
            output.drain(stdout_pipe), output.drain(stderr_pipe), _feed(process, stdin)
        )
        await process.wait()
        return out, err

    finished = asyncio.ensure_future(finish())
    over = asyncio.ensure_future(output.over.wait())
    try:
        done, _ = await asyncio.wait({finished, over}, timeout=limits.wall_seconds,
                                     return_when=asyncio.FIRST_COMPLETED)
        timed_out = not done
        if finished not in done:
            _kill_group(process.pid)
        (out, out_cut), (err, err_cut) = await finished
    finally:
        over.cancel()
        if not finished.done():  # cancelled from outside: nothing is left running
            _kill_group(process.pid)
            finished.cancel()
    exceeded = output.over.is_set()
    code = process.returncode
    stdout, stdout_cut = _text(out, out_cut, limits.max_output_chars)
    stderr, stderr_cut = _text(err, err_cut, limits.max_output_chars)
    ended_by = None if (timed_out or exceeded or code is None) else signal_of(code)
    return SandboxResult(code, stdout, stderr, stdout_cut, stderr_cut, timed_out, exceeded, ended_by)


def function_request(source: str, handler: str, arguments: dict[str, Any], limits: SandboxLimits) -> bytes:
    """The guard's stdin for ``python sandbox_guard.py function``."""
    return json.dumps({"source": source, "handler": handler, "arguments": arguments,
                       "allow_network": limits.allow_network,
                       "max_processes": limits.max_processes}).encode()


def skill_request(files: dict[str, str], entry: str, args: list[str], limits: SandboxLimits) -> bytes:
    """The guard's stdin for ``python sandbox_guard.py skill``."""
    python, argv = skill_command(entry, args)
    return json.dumps({"files": files, "argv": argv, "python": python,
                       "allow_network": limits.allow_network,
                       "max_processes": limits.max_processes}).encode()


def payload_env(scratch: str) -> dict[str, str]:
    """The whole environment a payload gets: nothing of the service's."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
            "HOME": scratch, "TMPDIR": scratch}


class GuardedSandbox:
    """The Sandbox port over the guard's two modes; an adapter supplies ``_run``."""

    async def _run(self, mode: str, stdin: bytes, limits: SandboxLimits) -> SandboxResult:
        raise NotImplementedError

    async def run_function(
        self, source: str, handler: str, arguments: dict[str, Any], limits: SandboxLimits
    ) -> SandboxResult:
        return await self._run("function", function_request(source, handler, arguments, limits), limits)

    async def run_skill(
        self, files: dict[str, str], entry: str, args: list[str], limits: SandboxLimits
    ) -> SandboxResult:
        return await self._run("skill", skill_request(files, entry, args, limits), limits)
