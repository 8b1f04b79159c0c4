"""execute_tool: checks first, then dispatch to the tool's kind, then a receipt on Kafka.

The receipt is journaled (provisional, outcome unknown) before the call is dispatched and the
entry closed once Kafka acknowledged the final receipt, so an executor that stops mid-call,
or a Kafka refusal after the target acted, still ends in a published receipt (recovery:
receipt_recovery.py). Without the journal nothing is dispatched.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any

from opentelemetry import trace

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.event_types.execution import Outcome
from bkn_common.contracts.i18n import DEFAULT_LANGUAGE, Language
from tool_executor.domain.arguments import arguments_hash, split_transport_fields
from tool_executor.domain.errors import ExecCode
from tool_executor.domain.openapi import MissingParameters, plan_request
from tool_executor.domain.sandbox import SandboxLimits
from tool_executor.service_layer.execution_authorisation import ExecutionAuthorisation
from tool_executor.service_layer.ports import (
    McpUpstream,
    OpenApiUpstream,
    ReceiptJournal,
    ReceiptSink,
    UpstreamTimeout,
    UpstreamUnreachable,
)
from tool_executor.service_layer.projection import FactoryState
from tool_executor.service_layer.receipt_publication import ReceiptPublication
from tool_executor.service_layer.receipt_signing import response_hash
from tool_executor.service_layer.sandbox import Sandbox, function_outcome

log = logging.getLogger(__name__)
tracer = trace.get_tracer("tool_executor")


@dataclass(frozen=True)
class ExecuteCommand:
    kn_id: str
    toolbox_id: str
    tool_id: str
    arguments: dict[str, Any]
    caller: str
    operation_id: str | None = None
    receipt_id: str | None = None
    conversation_id: str | None = None
    interaction_id: str | None = None
    invocation_id: str | None = None  # the client's invocation id, forwarded to OpenAPI upstreams
    language: Language = DEFAULT_LANGUAGE  # of messages in a sandboxed function's error body


def execution_headers(receipt_id: str, invocation_id: str | None) -> dict[str, str]:
    """What an OpenAPI upstream learns of the execution: its receipt id and, when the client
    gave one, its invocation id (an upstream can count or deduplicate by them)."""
    headers = {"X-BKN-Receipt-Id": receipt_id}
    if invocation_id:
        headers["X-OpenBKN-Client-Invocation-Id"] = invocation_id
    return headers


@dataclass
class ExecutionOutcome:
    receipt_id: str
    outcome: Outcome
    status_code: int | None
    body: Any
    latency_ms: float
    ignored_transport_fields: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "receipt_id": self.receipt_id,
            "outcome": self.outcome,
            "status_code": self.status_code,
            "body": self.body,
            "latency_ms": round(self.latency_ms, 3),
            "ignored_transport_fields": self.ignored_transport_fields,
        }


class ToolExecutor:
    def __init__(
        self,
        state: FactoryState,
        receipts: ReceiptSink,
        journal: ReceiptJournal,
        http: OpenApiUpstream,
        mcp: McpUpstream,
        sandbox: Sandbox,
        sandbox_limits: SandboxLimits,
        recovery_grace_seconds: float = 30.0,
    ) -> None:
        self.state = state
        self.authorisation = ExecutionAuthorisation(state)
        self._receipts = receipts
        self._journal = journal
        self._http = http
        self._mcp = mcp
        self._sandbox = sandbox
        self._limits = sandbox_limits  # the tool's own cpu / memory / wall / network replace these
        self._grace = recovery_grace_seconds
        self._publication = ReceiptPublication(journal, receipts)

    async def execute(self, cmd: ExecuteCommand) -> ExecutionOutcome:
        self.authorisation.require_network_permission(cmd.kn_id, cmd.caller, "execute")
        ref = self.authorisation.owner_ref(cmd.kn_id, cmd.toolbox_id, cmd.tool_id)
        proxy_id = self.authorisation.check_executable(cmd.kn_id, ref)
        arguments, ignored = split_transport_fields(cmd.arguments)
        receipt_id = cmd.receipt_id or "rcpt_" + uuid.uuid4().hex
        started = time.perf_counter()
        with tracer.start_as_current_span(
            f"execute_tool {cmd.tool_id}",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": cmd.tool_id,
                "gen_ai.tool.type": ref.capability_type,
                "bkn.kn_id": cmd.kn_id,
                "bkn.owner_id": cmd.toolbox_id,
                "bkn.receipt_id": receipt_id,
                **({"gen_ai.conversation.id": cmd.conversation_id} if cmd.conversation_id else {}),
            },
        ) as span:
            receipt = partial(self._receipt, cmd, ref, receipt_id, proxy_id, arguments, ignored,
                              started=started, span=span)
            await self._open_journal(receipt("upstream_error", None, outcome_known=False), ref)
            try:
                status, body, outcome, answered = await self._dispatch(
                    ref, arguments, proxy_id, cmd.language, execution_headers(receipt_id, cmd.invocation_id)
                )
            except ApiError as exc:
                if exc.status >= 500:  # dispatched, and the upstream failed or timed out
                    await self._record(receipt(_failure_outcome(exc), None))
                else:  # refused before anything was sent: no receipt
                    await self._close(receipt_id)
                raise
            except Exception:
                await self._record(receipt("upstream_error", None))
                raise
            result = ExecutionOutcome(
                receipt_id, outcome, status, body, (time.perf_counter() - started) * 1000, ignored
            )
            await self._record(receipt(outcome, status, answered=answered))
        return result

    async def _open_journal(self, provisional: ev.ExecutionReceiptRecorded, ref: ev.CapabilityRef) -> None:
        deadline = time.time() + self._time_limit(ref) + self._grace
        try:
            await self._journal.open(provisional, deadline)
        except Exception as exc:  # no journal, no dispatch: a crash could lose the receipt
            raise ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503,
                           params={"dependency": "redis (receipt journal)"}) from exc

    async def _record(self, receipt: ev.ExecutionReceiptRecorded) -> None:
        """The final receipt on Kafka, its journal entry closed (receipt_publication.py)."""
        await self._publication.record(receipt)

    async def _close(self, receipt_id: str) -> None:
        await self._publication.close(receipt_id)

    async def drain(self) -> None:
        """Wait for journal entries being closed (at shutdown)."""
        await self._publication.drain()

    def _time_limit(self, ref: ev.CapabilityRef) -> float:
        """An upper bound of how long a dispatch of ``ref`` may take (its own timeouts)."""
        if ref.capability_type == "mcp_tool":
            return self.state.catalog.servers[ref.owner_id or ""].timeout_seconds
        box = self.state.catalog.toolboxes[ref.owner_id or ""]
        tool = next((t for t in box.tools if t.id == ref.capability_id), None)
        function = tool.function if tool is not None else None
        return max(box.timeout_seconds, function.wall_seconds if function else 0.0)

    async def _dispatch(
        self, ref: ev.CapabilityRef, arguments: dict[str, Any], proxy_id: str, language: Language,
        headers: dict[str, str],
    ) -> tuple[int | None, Any, Outcome, str]:
        """(status, body, outcome, the answer's response_hash)."""
        if ref.capability_type == "mcp_tool":
            return _hashed(await self._call_mcp(ref, arguments))
        box = self.state.catalog.toolboxes[ref.owner_id or ""]
        tool = next(t for t in box.tools if t.id == ref.capability_id)
        if box.kind == "openapi" and tool.openapi is not None:
            return await self._call_openapi(box, tool.openapi, arguments, proxy_id, headers)
        if tool.function is not None:
            return _hashed(await self._call_function(tool.function, arguments, language))
        raise ApiError(ExecCode.TOOL_NOT_FOUND, 404, params={"capability": ref.key})

    async def _call_openapi(
        self, box: ev.ToolboxUpserted, op: ev.OpenApiOperation, arguments: dict[str, Any], proxy_id: str,
        headers: dict[str, str],
    ) -> tuple[int | None, Any, Outcome, str]:
        try:
            plan = plan_request(box.server_url or "", op, arguments)
        except MissingParameters as exc:
            raise ApiError(
                ErrorCode.INVALID_REQUEST, 400,
                params={"reason": f"missing required tool parameters: {exc}"},
                details={"missing": exc.names},
            ) from exc
        try:
            response = await self._http.call(plan, box.timeout_seconds, proxy_id, headers)
        except UpstreamTimeout as exc:
            raise ApiError(ExecCode.UPSTREAM_TIMEOUT, 504, params={"seconds": box.timeout_seconds}) from exc
        except UpstreamUnreachable as exc:
            raise _upstream_unreachable(box.id, exc.error) from exc
        outcome: Outcome = "succeeded" if response.status_code < 400 else "tool_error"
        return response.status_code, response.body, outcome, response_hash(response.body, response.raw)

    async def _call_mcp(
        self, ref: ev.CapabilityRef, arguments: dict[str, Any]
    ) -> tuple[int | None, Any, Outcome]:
        server = self.state.catalog.servers[ref.owner_id or ""]
        tool = next(t for t in server.tools if t.id == ref.capability_id)
        try:
            result = await asyncio.wait_for(
                self._mcp.call_tool(server.url, tool.name, arguments), server.timeout_seconds
            )
        except TimeoutError as exc:
            raise ApiError(ExecCode.UPSTREAM_TIMEOUT, 504, params={"seconds": server.timeout_seconds}) from exc
        except Exception as exc:  # the SDK wraps transport failures in several types
            raise _upstream_unreachable(server.id, exc) from exc
        body = {
            "is_error": result.is_error,
            "content": result.content,
            "structured_content": result.structured_content,
        }
        return None, body, "tool_error" if result.is_error else "succeeded"

    async def _call_function(
        self, code: ev.FunctionCode, arguments: dict[str, Any], language: Language
    ) -> tuple[int | None, Any, Outcome]:
        limits = replace(self._limits, cpu_seconds=code.cpu_seconds, memory_mb=code.memory_mb,
                         wall_seconds=code.wall_seconds, allow_network=code.allow_network)
        result = await self._sandbox.run_function(code.source, code.handler, arguments, limits)
        if result.timed_out:
            raise ApiError(ExecCode.UPSTREAM_TIMEOUT, 504, params={"seconds": code.wall_seconds})
        body, outcome = function_outcome(result, limits, language)
        return None, body, outcome

    def _receipt(
        self,
        cmd: ExecuteCommand,
        ref: ev.CapabilityRef,
        receipt_id: str,
        proxy_id: str,
        arguments: dict[str, Any],
        ignored: list[str],
        outcome: Outcome,
        status: int | None,
        *,
        started: float,
        span: trace.Span,
        outcome_known: bool = True,
        answered: str | None = None,
    ) -> ev.ExecutionReceiptRecorded:
        if outcome_known:
            span.set_attribute("bkn.outcome", outcome)
        context = span.get_span_context()
        return ev.ExecutionReceiptRecorded(
            receipt_id=receipt_id,
            operation_id=cmd.operation_id,
            conversation_id=cmd.conversation_id,
            interaction_id=cmd.interaction_id,
            kn_id=cmd.kn_id,
            owner_id=cmd.toolbox_id,
            tool_id=cmd.tool_id,
            capability_type=ref.capability_type,
            caller=cmd.caller,
            proxy_id=proxy_id,
            arguments_hash=arguments_hash(arguments),
            ignored_transport_fields=tuple(ignored),
            outcome=outcome,
            status_code=status,
            latency_ms=(time.perf_counter() - started) * 1000 if outcome_known else 0.0,
            executed_at=datetime.now(UTC),
            trace_id=format(context.trace_id, "032x") if context.is_valid else None,
            outcome_known=outcome_known,
            response_hash=answered,
        )


def _upstream_unreachable(owner_id: str, exc: BaseException) -> ApiError:
    return ApiError(
        ErrorCode.UPSTREAM_UNAVAILABLE, 502,
        params={"reason": f"{owner_id}: {type(exc).__name__}"},
        details={"owner_id": owner_id, "error": str(exc)[:300]},
    )


def _hashed(answer: tuple[int | None, Any, Outcome]) -> tuple[int | None, Any, Outcome, str]:
    """An MCP or function tool's answer with its response_hash (of the result's canonical JSON)."""
    status, body, outcome = answer
    return status, body, outcome, response_hash(body, None)


def _failure_outcome(exc: ApiError) -> Outcome:
    return "timeout" if exc.code == ExecCode.UPSTREAM_TIMEOUT else "upstream_error"
