"""Why a sandboxed run failed, what the caller gets back, and a sandbox that cannot start."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tool_executor.adapters import sandbox_guard
from tool_executor.adapters.bwrap_sandbox import BwrapSandbox, SandboxUnavailable
from tool_executor.bootstrap import make_sandbox
from tool_executor.domain import sandbox as domain
from tool_executor.domain.sandbox import SandboxLimits, SandboxReason, SandboxResult, failure_reason, skill_command
from tool_executor.service_layer.sandbox import function_outcome
from tool_executor.settings import ToolExecutorSettings

LIMITS = SandboxLimits()


def ended(exit_code: int | None = 0, stdout: str = "", **fields: object) -> SandboxResult:
    return SandboxResult(exit_code, stdout, "trace", False, False, False, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (ended(0), None),
        (ended(1), SandboxReason.FUNCTION_FAILED),
        (ended(domain.EXIT_MEMORY), SandboxReason.MEMORY_LIMIT),
        (ended(domain.EXIT_PROCESSES), SandboxReason.PROCESS_LIMIT),
        (ended(152, signal=signal.SIGXCPU), SandboxReason.CPU_LIMIT),
        (ended(137, signal=signal.SIGKILL), SandboxReason.CPU_LIMIT),
        (ended(139, signal=signal.SIGSEGV), SandboxReason.KILLED),
        (ended(-9, output_exceeded=True), SandboxReason.OUTPUT_LIMIT),
    ],
)
def test_failure_reason(result: SandboxResult, reason: str | None) -> None:
    assert failure_reason(result) == reason


def test_the_guard_uses_the_domains_exit_codes() -> None:
    assert (sandbox_guard.EXIT_MEMORY, sandbox_guard.EXIT_PROCESSES) == (
        domain.EXIT_MEMORY,
        domain.EXIT_PROCESSES,
    )


def test_a_result_is_the_functions_answer() -> None:
    body, outcome = function_outcome(ended(0, json.dumps({"result": [1, 2]})), LIMITS, "en-US")
    assert (body, outcome) == ([1, 2], "succeeded")


def test_a_limit_is_a_sandbox_error_with_code_message_and_details() -> None:
    body, outcome = function_outcome(ended(domain.EXIT_MEMORY), LIMITS, "zh-CN")
    assert outcome == "sandbox_error" and body["error"] == "function failed"
    assert body["code"] == "sandbox_memory_limit" and body["details"]["memory_mb"] == 256
    assert "256 MB" in body["message"] and "内存" in body["message"]
    english, _ = function_outcome(ended(152, signal=signal.SIGXCPU), LIMITS, "en-US")
    assert english["code"] == "sandbox_cpu_limit" and "5 s CPU-time limit" in english["message"]


def test_an_own_error_is_a_tool_error() -> None:
    body, outcome = function_outcome(ended(1), LIMITS, "en-US")
    assert outcome == "tool_error" and body["code"] == "function_failed"
    assert body["stderr"] == "trace" and "exit code 1" in body["message"]


def test_a_result_over_the_output_limit_is_refused() -> None:
    truncated = SandboxResult(0, "x" * 8000, "", True, False, False)
    body, outcome = function_outcome(truncated, LIMITS, "en-US")
    assert outcome == "sandbox_error" and body["code"] == "sandbox_output_limit"
    assert body["error"] == "function output exceeded the output limit" and body["limit_chars"] == 8000


def test_output_that_is_not_json_is_a_sandbox_error() -> None:
    body, outcome = function_outcome(ended(0, "hello"), LIMITS, "en-US")
    assert outcome == "sandbox_error" and body["stdout"] == "hello"


def test_skill_command() -> None:
    assert skill_command("python main.py --x", ["a b"]) == (True, ["main.py", "--x", "a b"])
    assert skill_command("bash run.sh", []) == (False, ["bash", "run.sh"])


def test_a_missing_bwrap_stops_the_service_at_start() -> None:
    settings = ToolExecutorSettings(sandbox="bwrap", sandbox_bwrap_path="/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable, match="not installed"):
        make_sandbox(settings)


def test_a_bwrap_that_cannot_run_stops_the_service_at_start() -> None:
    with pytest.raises(SandboxUnavailable, match="does not start"):
        BwrapSandbox("false").check()


def test_a_bwrap_that_hangs_at_start_stops_the_service_with_the_reason(tmp_path: Path) -> None:
    hanging = tmp_path / "bwrap"
    hanging.write_text("#!/bin/sh\nexec sleep 30\n")
    hanging.chmod(0o755)
    with pytest.raises(SandboxUnavailable, match=r"did not finish within 0\.2 s"):
        BwrapSandbox(str(hanging), check_timeout_seconds=0.2).check()


def test_the_start_up_check_timeout_is_a_setting() -> None:
    assert ToolExecutorSettings().sandbox_check_timeout_seconds >= 60
    assert ToolExecutorSettings(sandbox_check_timeout_seconds=5).sandbox_check_timeout_seconds == 5


def test_an_unknown_sandbox_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="sandbox"):
        ToolExecutorSettings(sandbox="none")  # type: ignore[arg-type]
