"""What tool-executor's handlers need from the outside, as ports (adapters in ``adapters/``,
wired in ``bootstrap.py``; each port with state has one contract suite in ``tests/contracts/``).

- :class:`ReceiptSink`: Kafka (``bkn_common.infra.kafka.EventPublisher``);
- :class:`ReceiptJournal`: Redis (``adapters/receipt_journal.py``), memory
  (``adapters/memory_receipt_journal.py``);
- :class:`ActionLedger`: Redis (``adapters/action_ledger.py``), memory
  (``adapters/memory_action_ledger.py``);
- :class:`OpenApiUpstream`: aiohttp (``adapters/openapi_client.py``);
- :class:`McpUpstream`: the MCP SDK's Streamable HTTP client (``adapters/mcp_client.py``);
- the sandbox: :class:`tool_executor.service_layer.sandbox.Sandbox`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bkn_common.contracts import events as ev
from tool_executor.domain.actions import CallOutcome
from tool_executor.domain.openapi import HttpRequestPlan


class ReceiptSink(Protocol):
    async def publish(self, event: ev.Event) -> None: ...


class ReceiptJournal(Protocol):
    """Receipts not yet acknowledged by Kafka (see ``adapters/receipt_journal.py``)."""

    async def open(self, receipt: ev.ExecutionReceiptRecorded, deadline: float) -> None:
        """Journal the provisional receipt; recovery may publish it after ``deadline``
        (epoch seconds)."""

    async def settle(self, receipt: ev.ExecutionReceiptRecorded) -> None:
        """Replace an open entry's receipt by the final one; never creates an entry."""

    async def close(self, receipt_id: str) -> None: ...

    async def open_count(self) -> int:
        """Entries open now."""
        ...

    async def overdue(self, now: float, limit: int) -> list[str]:
        """Up to ``limit`` open entries whose deadline is ``now`` or earlier, earliest first."""
        ...

    async def claim(self, receipt_id: str, seconds: float) -> bool:
        """Lease an entry for ``seconds`` to recover it; False while another holds it."""
        ...

    async def read(self, receipt_id: str) -> ev.ExecutionReceiptRecorded | None: ...


class ActionLedger(Protocol):
    """The records of one worker group running requested actions: per execution a lease
    (one worker at a time), per call a claim and its outcome, and a done mark."""

    lease_seconds: float

    async def is_done(self, execution_id: str) -> bool: ...

    async def acquire(self, execution_id: str, token: str) -> bool:
        """Take the lease for ``lease_seconds`` if nobody holds it."""
        ...

    async def renew(self, execution_id: str, token: str) -> bool:
        """Extend the lease when ``token`` still holds it; False when it was lost."""
        ...

    async def release(self, execution_id: str, token: str) -> None:
        """Give the lease up if (and only if) ``token`` holds it."""

    async def outcomes(self, execution_id: str) -> dict[int, str]:
        """Recorded calls by index: a stored outcome (:meth:`CallOutcome.dump`), or
        :data:`~tool_executor.domain.actions.STARTED` (claimed, no outcome)."""
        ...

    async def claim(self, execution_id: str, index: int) -> bool:
        """Mark call ``index`` started; False when it was already claimed."""
        ...

    async def record(self, execution_id: str, index: int, outcome: CallOutcome) -> None: ...

    async def finish(self, execution_id: str) -> None: ...


@dataclass(frozen=True)
class UpstreamResponse:
    status_code: int
    body: Any
    content_type: str
    raw: bytes | None = None  # the exact bytes of the answer (its response_hash is over them)


class UpstreamTimeout(Exception):
    """The upstream did not answer in time."""


class UpstreamUnreachable(Exception):
    """The upstream could not be reached, or the transport failed (``error`` says how)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class OpenApiUpstream(Protocol):
    async def call(
        self, plan: HttpRequestPlan, timeout: float, proxy_id: str,
        execution: dict[str, str] | None = None,
    ) -> UpstreamResponse:
        """Send the request as the network's proxy identity (plus the execution's headers).
        Raises :class:`UpstreamTimeout` or :class:`UpstreamUnreachable`."""
        ...


@dataclass(frozen=True)
class McpToolResult:
    is_error: bool
    content: list[dict[str, Any]]
    structured_content: Any


class McpUpstream(Protocol):
    async def call_tool(self, url: str, tool: str, arguments: dict[str, Any]) -> McpToolResult:
        """One ``tools/call`` on the server at ``url``; raises on transport failure."""
        ...
