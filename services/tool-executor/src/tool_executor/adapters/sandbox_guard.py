"""Runs inside the sandbox (stdlib only): reads its request on stdin, then runs the payload.

Usage: ``python -I sandbox_guard.py function`` (JSON on stdin: source, handler, arguments,
allow_network) or ``python -I sandbox_guard.py skill`` (JSON on stdin: files, argv, python,
allow_network; the files are written to the working directory, the sandbox's scratch).

The Python-level network guard only makes the refusal readable ("network access is
disabled"); the kernel boundary is the sandbox's empty network namespace (adapters/bwrap).
A limit the guard can name ends the process with its own exit code (EXIT_MEMORY,
EXIT_PROCESSES); the executor reads it as the reason.
"""

import errno
import json
import os
import resource
import runpy
import socket
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_MEMORY = 90
EXIT_PROCESSES = 91


def _limit_processes(count: int) -> None:
    """RLIMIT_NPROC, set here rather than before the sandbox starts: inside bwrap's user
    namespace (or as a uid of the run's own, run as root) only this run's processes and
    threads count against it, never the service's or another container's of the same uid."""
    resource.setrlimit(resource.RLIMIT_NPROC, (count, count))


def _block_network() -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError("network access is disabled in this sandbox")

    socket.socket = refuse  # type: ignore[assignment,misc]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def _exit_for(exc: BaseException) -> int:
    if isinstance(exc, MemoryError):
        return EXIT_MEMORY
    if isinstance(exc, BlockingIOError) and exc.errno == errno.EAGAIN:  # fork/clone refused
        return EXIT_PROCESSES
    return 1


def _guarded(run: Callable[[], None]) -> None:
    """Run ``run()``; a forked child never reports, an error exits with its reason's code."""
    me = os.getpid()
    try:
        run()
    except SystemExit:
        if os.getpid() != me:
            os._exit(0)
        raise
    except BaseException as exc:  # every failure is reported the same way
        if os.getpid() != me:
            os._exit(_exit_for(exc))
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(_exit_for(exc))
    if os.getpid() != me:  # a fork of the payload that returned: its result is not the call's
        os._exit(0)


def _run_function(request: dict[str, Any]) -> None:
    result_stream = sys.stdout
    sys.stdout = sys.stderr  # what the function prints is diagnostics, never part of its result
    namespace: dict[str, object] = {"__name__": "bkn_function"}
    exec(compile(str(request["source"]), "<function>", "exec"), namespace)
    handler = namespace.get(str(request.get("handler", "handler")))
    if not callable(handler):
        raise SystemExit("handler not found in function source")
    me = os.getpid()
    result = handler(request.get("arguments", {}))
    if os.getpid() != me:
        os._exit(0)
    sys.stdout = result_stream
    result_stream.write(json.dumps({"result": result}, ensure_ascii=False, default=str))
    result_stream.flush()


def _write_files(files: dict[str, str]) -> None:
    root = Path.cwd().resolve()
    for rel, content in files.items():
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def _run_skill(request: dict[str, Any]) -> None:
    _write_files(dict(request.get("files", {})))
    argv = [str(a) for a in request.get("argv", [])]
    if not argv:
        raise SystemExit("skill has no entry command")
    if request.get("python"):
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    else:
        os.execvp(argv[0], argv)


if __name__ == "__main__":
    payload = json.loads(sys.stdin.buffer.read())
    _limit_processes(int(payload.get("max_processes", 32)))
    if not payload.get("allow_network"):
        _block_network()
    if sys.argv[1] == "function":
        _guarded(lambda: _run_function(payload))
    else:
        _guarded(lambda: _run_skill(payload))
