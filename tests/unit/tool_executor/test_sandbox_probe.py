"""The preflight's verdict on a probe's report (service_layer/sandbox_probe.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tool_executor.domain.sandbox import SandboxLimits, SandboxResult
from tool_executor.service_layer.sandbox_probe import evaluate

LIMITS = SandboxLimits(max_processes=32)
CONTAINED = {"env": ["HOME", "LANG", "PATH", "PYTHONIOENCODING", "TMPDIR"], "proc": False,
             "devices": ["lo"], "writable": [], "scratch": "/scratch", "nproc": 32, "uid": 65534}


def answered(**changes: Any) -> SandboxResult:
    report = {**CONTAINED, **changes}
    return SandboxResult(0, json.dumps({"result": report}), "", False, False, False)


def failed_checks(result: SandboxResult) -> list[str]:
    return [finding.check for finding in evaluate(result, LIMITS) if not finding.ok]


def test_a_contained_probe_passes_every_check() -> None:
    findings = evaluate(answered(), LIMITS)
    assert [f.check for f in findings] == ["probe run", "environment", "process table", "network",
                                           "filesystem", "process limit", "user"]
    assert all(f.ok for f in findings)


@pytest.mark.parametrize(
    ("changes", "check"),
    [
        ({"env": ["PATH", "MESH_INTERNAL_SECRET"]}, "environment"),
        ({"proc": True}, "process table"),
        ({"devices": ["eth0", "lo"]}, "network"),
        ({"writable": ["/app"]}, "filesystem"),
        ({"nproc": -1}, "process limit"),
        ({"uid": 0}, "user"),
    ],
)
def test_each_escape_fails_its_own_check(changes: dict[str, Any], check: str) -> None:
    assert failed_checks(answered(**changes)) == [check]


def test_a_probe_that_did_not_answer_fails_with_its_stderr() -> None:
    result = SandboxResult(1, "", "Traceback ... PermissionError: denied", False, False, False)
    [finding] = evaluate(result, LIMITS)
    assert not finding.ok and "PermissionError: denied" in finding.detail
