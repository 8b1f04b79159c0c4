"""A subprocess sandbox with CPU-time, memory, wall-clock and output-size limits.

Network access is refused inside the child unless the tool declares it (a guard replaces
the socket API before any payload code runs). This is a process-level sandbox, not a
security boundary against hostile native code; see docs/architecture.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GUARD = str(Path(__file__).with_name("sandbox_guard.py"))


@dataclass(frozen=True)
class SandboxLimits:
    cpu_seconds: int = 5
    memory_mb: int = 256
    wall_seconds: float = 10.0
    max_output_chars: int = 8000
    allow_network: bool = False


@dataclass(frozen=True)
class SandboxResult:
    exit_code: int | None
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    timed_out: bool


def _limit(limits: SandboxLimits) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    memory = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024, 16 * 1024 * 1024))


def _cap(text: bytes, limit: int) -> tuple[str, bool]:
    decoded = text.decode(errors="replace")
    return (decoded[:limit], True) if len(decoded) > limit else (decoded, False)


async def _run(
    argv: list[str], limits: SandboxLimits, *, stdin: bytes | None, cwd: str | None
) -> SandboxResult:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONIOENCODING": "utf-8",
           "ALLOW_NETWORK": "1" if limits.allow_network else "0", "LANG": "C.UTF-8"}
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        preexec_fn=lambda: _limit(limits),
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin), limits.wall_seconds)
    except TimeoutError:
        timed_out = True
        process.kill()
        out, err = await process.communicate()
    stdout, stdout_cut = _cap(out, limits.max_output_chars)
    stderr, stderr_cut = _cap(err, limits.max_output_chars)
    return SandboxResult(process.returncode, stdout, stderr, stdout_cut, stderr_cut, timed_out)


async def run_function(
    source: str, handler: str, arguments: dict[str, Any], limits: SandboxLimits
) -> SandboxResult:
    """Run ``handler(arguments)`` from ``source``; stdout holds ``{"result": ...}`` on success."""
    payload = json.dumps({"source": source, "handler": handler, "arguments": arguments,
                          "allow_network": limits.allow_network}).encode()
    return await _run([sys.executable, "-I", GUARD, "function"], limits, stdin=payload, cwd=None)


def _write_files(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        target = (root / rel).resolve()
        if not target.is_relative_to(root.resolve()):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


async def run_skill(
    files: dict[str, str], entry: str, args: list[str], limits: SandboxLimits
) -> SandboxResult:
    """Write the skill's files to a scratch folder and run its entry command there."""
    with tempfile.TemporaryDirectory(prefix="bkn-skill-") as folder:
        await asyncio.to_thread(_write_files, Path(folder), files)
        command = shlex.split(entry)
        if command and command[0] in ("python", "python3"):
            argv = [sys.executable, "-I", GUARD, "script", *command[1:], *args]
        else:
            argv = [*command, *args]
        return await _run(argv, limits, stdin=b"", cwd=folder)
