"""The sandbox port, and what a sandboxed run's end means for the caller.

Adapters: adapters/bwrap_sandbox.py (kernel namespaces, the default) and adapters/sandbox.py
(a plain child process, TOOL_EXECUTOR_SANDBOX=process, not a boundary).
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from bkn_common.contracts.event_types.execution import Outcome
from bkn_common.contracts.i18n import Language, render_message
from tool_executor.domain.sandbox import SandboxLimits, SandboxReason, SandboxResult, failure_reason

STDERR_TAIL = 2000


class SandboxUnavailable(RuntimeError):
    """The configured sandbox cannot run here (raised at start, never per call)."""


class Sandbox(Protocol):
    async def run_function(
        self, source: str, handler: str, arguments: dict[str, Any], limits: SandboxLimits
    ) -> SandboxResult: ...

    async def run_skill(
        self, files: dict[str, str], entry: str, args: list[str], limits: SandboxLimits
    ) -> SandboxResult: ...


def limit_details(reason: str, limits: SandboxLimits) -> dict[str, Any]:
    """The limit a reason names, for the envelope's ``details`` and its message."""
    return {
        SandboxReason.CPU_LIMIT: {"cpu_seconds": limits.cpu_seconds},
        SandboxReason.MEMORY_LIMIT: {"memory_mb": limits.memory_mb},
        SandboxReason.PROCESS_LIMIT: {"max_processes": limits.max_processes},
        SandboxReason.OUTPUT_LIMIT: {"limit_chars": limits.max_output_chars,
                                     "limit_bytes": limits.max_output_bytes},
    }.get(reason, {})


def sandbox_error(reason: str, limits: SandboxLimits, language: Language, **params: Any) -> dict[str, Any]:
    """``code``, ``message`` (in ``language``) and ``details`` of a sandboxed run's failure."""
    details = limit_details(reason, limits) | params
    return {"code": reason, "message": render_message(reason, language, details), "details": details}


def function_outcome(
    result: SandboxResult, limits: SandboxLimits, language: Language
) -> tuple[Any, Outcome]:
    """The body and outcome of a function tool's finished (not timed-out) run."""
    reason = failure_reason(result)
    if reason is None and result.stdout_truncated:
        reason = SandboxReason.OUTPUT_LIMIT
    if reason is None:
        try:
            return json.loads(result.stdout)["result"], "succeeded"
        except (ValueError, KeyError, TypeError):
            return {"error": "function output was not JSON", "stdout": result.stdout,
                    **sandbox_error(SandboxReason.FUNCTION_FAILED, limits, language, exit_code=0)}, "sandbox_error"
    if reason == SandboxReason.OUTPUT_LIMIT:
        return {"error": "function output exceeded the output limit",
                "limit_chars": limits.max_output_chars,
                **sandbox_error(reason, limits, language)}, "sandbox_error"
    body = {"error": "function failed", "exit_code": result.exit_code,
            "stderr": result.stderr[-STDERR_TAIL:],
            **sandbox_error(reason, limits, language, exit_code=result.exit_code,
                            **({"signal": result.signal} if result.signal else {}))}
    return body, "tool_error" if reason == SandboxReason.FUNCTION_FAILED else "sandbox_error"
