"""``python -m tool_executor check-sandbox``: the operators' preflight of the sandbox.

Runs the start-up check tool-executor runs (a sandbox that cannot start stops the service),
then one contained probe run, prints what it found and exits 0 only when the sandbox works in
this container. The chart's ``helm test`` runs it with tool-executor's securityContext.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import TextIO

from tool_executor.domain.sandbox import SandboxLimits
from tool_executor.service_layer.sandbox import Sandbox, SandboxUnavailable
from tool_executor.service_layer.sandbox_probe import Finding, probe

NAMESPACES_REFUSED = ("unshare failed", "Creating new namespace failed", "No permissions to create")
HINT = ("the container may not make the user namespaces the sandbox needs: run tool-executor "
        "with the seccomp profile the chart ships (deploy/helm/context-loader/files/"
        "tool-executor-seccomp.json; docs/operations.md, \"The sandbox on Kubernetes\")")


def _print(findings: list[Finding], out: TextIO) -> None:
    for finding in findings:
        out.write(f"{'ok  ' if finding.ok else 'FAIL'}  {finding.check:<14} {finding.detail}\n")


def check_sandbox(kind: str, start: Callable[[], Sandbox], function_limits: SandboxLimits,
                  out: TextIO = sys.stdout) -> int:
    """0 when the sandbox ``start`` makes (bootstrap's, of the configured ``kind``) starts and
    contains the probe, 1 otherwise (the reason printed)."""
    out.write(f"sandbox: {kind}\n")
    try:
        sandbox = start()
    except SandboxUnavailable as exc:
        reason = str(exc)
        _print([Finding("start-up", False, reason)], out)
        if any(marker in reason for marker in NAMESPACES_REFUSED):
            out.write(f"hint: {HINT}\n")
        out.write("verdict: the sandbox does NOT work in this container\n")
        return 1
    findings = [Finding("start-up", True, "the start-up check ran a function")]
    findings += asyncio.run(probe(sandbox, function_limits))
    _print(findings, out)
    works = all(finding.ok for finding in findings)
    out.write(f"verdict: the sandbox {'works' if works else 'does NOT work'} in this container\n")
    return 0 if works else 1
