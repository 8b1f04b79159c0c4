"""Runs INSIDE the image, as tool-executor's container (tests/container/test_tool_executor_pod.py
mounts it read-only): each function of the request through the sandbox tool-executor makes
from its settings, then one JSON line per run on stdout. Standard library and tool_executor only.

stdin: {"runs": [{"name", "source", "arguments", "limits": {SandboxLimits fields}}]}
A run whose arguments hold "port": "LISTENER" gets the port of a loopback listener this
process holds (outside the sandbox); "accepted" says whether anything reached it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from dataclasses import replace

from tool_executor.bootstrap import make_sandbox, sandbox_limits
from tool_executor.domain.sandbox import failure_reason
from tool_executor.settings import ToolExecutorSettings


async def main() -> None:
    request = json.loads(sys.stdin.read())
    settings = ToolExecutorSettings()
    sandbox = make_sandbox(settings)
    base, _ = sandbox_limits(settings)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        for run in request["runs"]:
            arguments = dict(run.get("arguments", {}))
            if arguments.get("port") == "LISTENER":
                arguments["port"] = listener.getsockname()[1]
            limits = replace(base, **run.get("limits", {}))
            result = await sandbox.run_function(run["source"], "handler", arguments, limits)
            try:
                listener.accept()[0].close()
                accepted = True
            except BlockingIOError:
                accepted = False
            line = {"name": run["name"], "reason": failure_reason(result), "exit_code": result.exit_code,
                    "timed_out": result.timed_out, "stdout": result.stdout[:4000],
                    "stderr": result.stderr[-1000:], "accepted": accepted}
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
