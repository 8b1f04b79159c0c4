"""``python -m tool_executor check-sandbox`` on this machine: the operators' preflight with the
real bwrap (the same command runs in the image under the chart's securityContext in
tests/container/)."""

from __future__ import annotations

import os
import subprocess
import sys


def check_sandbox(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tool_executor", "check-sandbox"],
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=300, check=False)


def test_it_passes_where_the_sandbox_works_and_prints_each_check() -> None:
    done = check_sandbox(TOOL_EXECUTOR_SANDBOX="bwrap")
    assert done.returncode == 0, done.stdout + done.stderr
    for check in ("start-up", "environment", "process table", "network", "filesystem", "process limit"):
        assert f"ok    {check}" in done.stdout
    assert done.stdout.rstrip().endswith("verdict: the sandbox works in this container")


def test_it_fails_with_the_reason_when_the_sandbox_cannot_start() -> None:
    done = check_sandbox(TOOL_EXECUTOR_SANDBOX="bwrap", TOOL_EXECUTOR_SANDBOX_BWRAP_PATH="no-such-bwrap")
    assert done.returncode == 1
    assert "FAIL  start-up" in done.stdout and "'no-such-bwrap' is not installed" in done.stdout
    assert "does NOT work" in done.stdout


def test_the_unsandboxed_development_mode_is_reported_as_not_a_boundary() -> None:
    done = check_sandbox(TOOL_EXECUTOR_SANDBOX="process")
    assert done.returncode == 1
    assert "FAIL  process table" in done.stdout or "FAIL  network" in done.stdout
