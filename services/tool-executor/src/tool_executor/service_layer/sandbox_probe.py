"""The operators' preflight (``python -m tool_executor check-sandbox``): one contained run of a
probe that reports what it can see and do, and the checks its report must pass.

The probe runs through the Sandbox port like any function tool, so it shows the boundary the
payloads of this container get: nothing of the service's environment, no process table, no
network device but loopback, no writable place outside scratch, the process limit in force.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tool_executor.domain.sandbox import SandboxLimits, SandboxResult, failure_reason
from tool_executor.service_layer.sandbox import Sandbox

PROBE = """import os, resource, socket
def handler(a):
    writable = []
    for path in a['outside']:
        try:
            with open(os.path.join(path, '.bkn-probe'), 'w') as f:
                f.write('x')
            writable.append(path)
        except OSError:
            pass
    with open('probe.txt', 'w') as f:
        f.write('scratch')
    try:
        devices = sorted(name for _, name in socket.if_nameindex())
    except OSError as exc:
        devices = ['unknown: ' + exc.strerror]
    return {'env': sorted(os.environ), 'proc': os.path.exists('/proc/1'),
            'devices': devices, 'writable': writable, 'scratch': os.getcwd(),
            'nproc': resource.getrlimit(resource.RLIMIT_NPROC)[0], 'uid': os.getuid()}
"""
OUTSIDE = ["/", "/usr", "/etc", "/app", "/opt", "/var", "/home"]
PAYLOAD_ENV = {"PATH", "LANG", "PYTHONIOENCODING", "HOME", "TMPDIR", "PWD"}


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str


def _checks(limits: SandboxLimits) -> dict[str, Callable[[dict[str, Any]], tuple[bool, str]]]:
    return {
        "environment": lambda r: (set(r["env"]) <= PAYLOAD_ENV, ", ".join(r["env"])),
        "process table": lambda r: (not r["proc"], "hidden" if not r["proc"] else "/proc/1 is visible"),
        "network": lambda r: (r["devices"] in ([], ["lo"]), "devices: " + (", ".join(r["devices"]) or "none")),
        "filesystem": lambda r: (not r["writable"], "writable outside scratch: "
                                 + (", ".join(r["writable"]) or "nothing") + f"; scratch {r['scratch']}"),
        "process limit": lambda r: (r["nproc"] == limits.max_processes,
                                    f"RLIMIT_NPROC {r['nproc']} (configured {limits.max_processes})"),
        "user": lambda r: (r["uid"] != 0, f"uid {r['uid']} inside the sandbox"),
    }


def evaluate(result: SandboxResult, limits: SandboxLimits) -> list[Finding]:
    """The findings of one probe run (a failed run is one failed finding with its stderr)."""
    if failure_reason(result) is not None or result.timed_out:
        tail = result.stderr.strip()[-500:] or f"exit {result.exit_code}"
        return [Finding("probe run", False, tail)]
    report = json.loads(result.stdout)["result"]
    findings = [Finding("probe run", True, "a function ran and answered")]
    for name, check in _checks(limits).items():
        ok, detail = check(report)
        findings.append(Finding(name, ok, detail))
    return findings


async def probe(sandbox: Sandbox, limits: SandboxLimits) -> list[Finding]:
    result = await sandbox.run_function(PROBE, "handler", {"outside": OUTSIDE}, limits)
    return evaluate(result, limits)
