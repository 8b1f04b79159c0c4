"""Runs inside the sandbox subprocess (stdlib only): limits, no network, then the payload.

Usage: ``python -I sandbox_guard.py function`` (JSON on stdin: source, handler, arguments,
allow_network) or ``python -I sandbox_guard.py script <path> [args...]`` (ALLOW_NETWORK=0|1
in the environment).
"""

import json
import os
import runpy
import socket
import sys


def _block_network() -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError("network access is disabled in this sandbox")

    socket.socket = refuse  # type: ignore[assignment,misc]
    socket.create_connection = refuse  # type: ignore[assignment]
    socket.getaddrinfo = refuse  # type: ignore[assignment]


def _run_function() -> None:
    request = json.loads(sys.stdin.read())
    if not request.get("allow_network"):
        _block_network()
    result_stream = sys.stdout
    sys.stdout = sys.stderr  # what the function prints is diagnostics, never part of its result
    namespace: dict[str, object] = {"__name__": "bkn_function"}
    exec(compile(request["source"], "<function>", "exec"), namespace)
    handler = namespace.get(request.get("handler", "handler"))
    if not callable(handler):
        raise SystemExit("handler not found in function source")
    result = handler(request.get("arguments", {}))
    sys.stdout = result_stream
    result_stream.write(json.dumps({"result": result}, ensure_ascii=False, default=str))


def _run_script(path: str, args: list[str]) -> None:
    if os.environ.get("ALLOW_NETWORK") != "1":
        _block_network()
    sys.argv = [path, *args]
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    if sys.argv[1] == "function":
        _run_function()
    else:
        _run_script(sys.argv[2], sys.argv[3:])
