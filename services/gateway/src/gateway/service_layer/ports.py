"""The gateway's ports: what handlers and entrypoints need from the outside world.

Adapters implement them (``adapters/``: Redis, the internal services over HTTP, Kafka); the
memory adapters are what unit tests run against. One contract suite per port
(``tests/contracts/``) runs against every adapter. The rate-limit port lives with its refusal
in ``rate_limits.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bkn_common.contracts import events as ev
from bkn_common.contracts.i18n import Language
from gateway.domain.context import CallContext
from gateway.domain.identity import Principal


class Authentication(Protocol):
    """Who sent a request: its ``Authorization`` header as a principal, or ``ApiError``
    ``UNAUTHENTICATED`` (adapters/identity.py ``Authenticator``: AppKeys and OAuth access tokens)."""

    def authenticate(self, authorization: str | None) -> Principal: ...


class InternalService(Protocol):
    """One internal service: a signed call for an account; refusals raise ``ApiError`` in the
    envelope, an unreachable service ``dependency_unavailable`` (503)."""

    name: str

    async def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        account: str | None = None,
        language: Language = "en-US",
        request_id: str | None = None,
        timeout: float | None = None,
    ) -> Any: ...


class InternalServices(Protocol):
    """The internal services the gateway calls."""

    @property
    def capability_index(self) -> InternalService: ...

    @property
    def tool_executor(self) -> InternalService: ...

    @property
    def trace_recorder(self) -> InternalService: ...

    @property
    def ontology_query(self) -> InternalService: ...

    @property
    def knowledge_base(self) -> InternalService: ...


class EventPublisher(Protocol):
    async def publish(self, event: ev.Event, *, headers: dict[str, str] | None = None) -> None:
        """Publish on the event's topic; raises when the log did not acknowledge it."""
        ...


@dataclass(frozen=True)
class Claim:
    """``fresh``: the caller runs the call (``attempt``: how many earlier calls with the id were
    refused before anything ran); ``running``: another call holds the id; ``done``: ``result``
    holds the original outcome; ``failed``: the original call failed after it may have acted,
    ``error`` holds its refusal (``code``, ``status``, ``params``)."""

    state: str
    input_hash: str
    result: Any = None
    error: Any = None
    attempt: int = 0


FINAL_STATES = ("done", "failed")

# Before the failed state, a failure after the call may have acted was stored as a done record
# whose outcome held it under this key; such records live out their TTL after an upgrade.
LEGACY_FAILURE = "bkn_failed_after_dispatch"


def upgraded(claim: Claim) -> Claim:
    """A record as it reads today: a done record written the earlier way (its outcome's
    ``data`` holds the failure under :data:`LEGACY_FAILURE`) is the failure it stands for."""
    data = claim.result.get("data") if isinstance(claim.result, dict) else None
    if claim.state == "done" and isinstance(data, dict) and LEGACY_FAILURE in data:
        return Claim("failed", claim.input_hash, error=data[LEGACY_FAILURE])
    return claim


class Idempotency(Protocol):
    """Invocation-id records: one execution per (account, tool, invocation id).

    A record lives its TTL (``GATEWAY_IDEMPOTENCY_TTL_SECONDS``) from its claim, completion or
    failure; a release keeps the claim's. Records that cannot be read (the store away) refuse
    ``claim`` and ``wait_done`` with 503 ``dependency_unavailable`` before anything ran; a
    record that cannot be written after the call (``complete``, ``fail``, ``release``) is
    logged, never raised: the caller still gets the call's own answer.
    (Contract: ``tests/contracts/invocation_records.py``.)
    """

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        """Reserve the id for this input (``fresh``; the record is then ``running``, and of
        concurrent claims one is fresh), or report what an earlier call with it did, with that
        call's input hash (a different one is the caller's conflict)."""
        ...

    async def wait_done(
        self, account: str, tool: str, invocation_id: str, timeout: float
    ) -> Claim | None:
        """Wait (at most ``timeout`` s) for a running call with this id to end, done or failed;
        None when it did not, when the id was released, or when there is no record."""
        ...

    async def complete(
        self, account: str, tool: str, invocation_id: str, input_hash: str, result: Any
    ) -> None:
        """Remember the outcome (JSON): a retry gets it again, never a new run."""
        ...

    async def fail(
        self, account: str, tool: str, invocation_id: str, input_hash: str, error: dict[str, Any]
    ) -> None:
        """Remember a failure after the call may have acted: a retry gets it, never a new run."""
        ...

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        """Free a claim whose call was refused before anything ran: the next claim of the id is
        ``fresh`` again, one ``attempt`` further. Only a running record is released."""
        ...


class TraceCore(Protocol):
    """The trace core (trace-recorder) as the gateway sees it, plus the outage gap counter."""

    async def probe(self, ctx: CallContext) -> dict[str, Any] | None:
        """A bounded read-only probe: the policy when the core answers, None when it does not."""
        ...

    async def start(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]: ...

    async def finish(
        self, ctx: CallContext, body: dict[str, Any], reported_gaps: int = 0
    ) -> dict[str, Any]: ...

    async def begin_operation(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]: ...

    def complete_in_background(
        self, ctx: CallContext, interaction_id: str, body: dict[str, Any]
    ) -> None: ...

    async def drain(self, interaction_id: str | None = None, timeout: float = 10.0) -> None: ...

    async def remember_gap(self, interaction_id: str) -> None:
        """Count a managed call that ran unrecorded; finish reports evidence as partial."""
        ...


class ActionSubmissions(Protocol):
    """``execute_action``'s duplicate window and pending markers, shared by every replica."""

    async def claim(self, fingerprint: str, execution_id: str, window_seconds: int) -> str | None:
        """Take the submission ``fingerprint`` for ``execution_id`` for ``window_seconds``:
        None when taken, else the execution id that holds it."""
        ...

    async def release(self, fingerprint: str, execution_id: str) -> None:
        """Give the fingerprint back, only if ``execution_id`` still holds it."""
        ...

    async def mark_pending(self, execution_id: str, record: dict[str, Any], ttl_seconds: int) -> None:
        """Remember an accepted submission until ontology-query has materialized it."""
        ...

    async def pending(self, execution_id: str) -> dict[str, Any] | None: ...


class SessionStore(Protocol):
    """MCP session ids, their owner and endpoint, shared by every gateway replica."""

    async def create(self, account: str, endpoint: str, protocol_version: str | None) -> str:
        """A new session id for this account on this endpoint."""
        ...

    async def valid(self, session_id: str, account: str, endpoint: str) -> bool:
        """The session exists and belongs to this account and endpoint (a use refreshes it)."""
        ...

    async def terminate(self, session_id: str) -> bool:
        """End the session; False when there was none."""
        ...
