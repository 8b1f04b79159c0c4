"""Fakes of the gateway's ports for handler tests: internal services answering from a table,
a publisher that keeps what it published, and ``deps()`` wiring them with the memory adapters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bkn_common import events as ev
from bkn_common.errors import ApiError, ErrorCode
from bkn_common.i18n import Language
from gateway.adapters.action_submissions import MemoryActionSubmissions
from gateway.domain.context import CallContext
from gateway.domain.identity import Principal
from gateway.service_layer.access import AccessChecker
from gateway.service_layer.catalogue import build_registry
from gateway.service_layer.deps import Deps
from gateway.service_layer.ports import FINAL_STATES, Claim
from gateway.settings import GatewaySettings

Answer = Callable[[Any], Any]


@dataclass
class Call:
    method: str
    path: str
    json: Any
    account: str | None
    timeout: float | None = None


class FakeService:
    """Answers ``(method, path)`` from ``routes`` (a value, or a function of the body that may
    raise); anything else is a 404 in the envelope, as an internal service answers."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.routes: dict[tuple[str, str], Any] = {}
        self.calls: list[Call] = []

    def on(self, method: str, path: str, answer: Any) -> None:
        self.routes[(method, path)] = answer

    def paths(self) -> list[str]:
        return [c.path for c in self.calls]

    async def call(self, method: str, path: str, *, json: Any = None,
                   params: dict[str, Any] | None = None, account: str | None = None,
                   language: Language = "en-US", request_id: str | None = None,
                   timeout: float | None = None) -> Any:
        self.calls.append(Call(method, path, json, account, timeout))
        if (method, path) not in self.routes:
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": path})
        answer = self.routes[(method, path)]
        return answer(json) if callable(answer) else answer


class FakeServices:
    def __init__(self) -> None:
        self.capability_index = FakeService("capability-index")
        self.tool_executor = FakeService("tool-executor")
        self.trace_recorder = FakeService("trace-recorder")
        self.ontology_query = FakeService("ontology-query")
        self.knowledge_base = FakeService("knowledge-base")

    def grant(self, *permissions: str, exists: bool = True) -> None:
        """The caller's permissions on every network (ontology-query's access answer)."""
        self.ontology_query.on("POST", "/internal/v1/access",
                               {"exists": exists, "permissions": list(permissions)})


@dataclass
class FakePublisher:
    published: list[ev.Event] = field(default_factory=list)
    failure: Exception | None = None

    async def publish(self, event: ev.Event, *, headers: dict[str, str] | None = None) -> None:
        if self.failure is not None:
            raise self.failure
        self.published.append(event)


class UnusedIdempotency:
    """Handlers never see invocation ids (the pipeline does): any use is a test failure."""

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        raise AssertionError("handler used idempotency")

    async def wait_done(self, account: str, tool: str, invocation_id: str, timeout: float) -> Claim | None:
        raise AssertionError("handler used idempotency")

    async def complete(self, account: str, tool: str, invocation_id: str, input_hash: str, result: Any) -> None:
        raise AssertionError("handler used idempotency")

    async def fail(self, account: str, tool: str, invocation_id: str, input_hash: str, error: dict[str, Any]) -> None:
        raise AssertionError("handler used idempotency")

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        raise AssertionError("handler used idempotency")


class DictIdempotency:
    """Invocation-id records in a dict, as the Idempotency port keeps them (no expiry, no waiting:
    a running record is reported as it is; a released one is taken as the next attempt)."""

    def __init__(self) -> None:
        self.records: dict[tuple[str, str, str], Claim] = {}

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        key = (account, tool, invocation_id)
        held = self.records.get(key)
        if held is None or held.state == "retryable":
            attempt = 0 if held is None else held.attempt + 1
            self.records[key] = Claim("running", input_hash, attempt=attempt)
            return Claim("fresh", input_hash, attempt=attempt)
        return held

    async def wait_done(self, account: str, tool: str, invocation_id: str, timeout: float) -> Claim | None:
        claim = self.records.get((account, tool, invocation_id))
        return claim if claim is not None and claim.state in FINAL_STATES else None

    async def complete(self, account: str, tool: str, invocation_id: str, input_hash: str, result: Any) -> None:
        self.records[(account, tool, invocation_id)] = Claim("done", input_hash, result=result)

    async def fail(self, account: str, tool: str, invocation_id: str, input_hash: str, error: dict[str, Any]) -> None:
        self.records[(account, tool, invocation_id)] = Claim("failed", input_hash, error=error)

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        held = self.records[(account, tool, invocation_id)]
        self.records[(account, tool, invocation_id)] = Claim("retryable", held.input_hash, attempt=held.attempt)


class FakeTraceCore:
    """Records starts and finishes (with the gaps the client reported) and answers as the trace
    core does; ``failure`` makes both raise it."""

    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []
        self.finished: list[tuple[dict[str, Any], int]] = []
        self.failure: ApiError | None = None

    async def probe(self, ctx: CallContext) -> dict[str, Any] | None:
        return None

    async def start(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]:
        if self.failure is not None:
            raise self.failure
        self.started.append(body)
        return {"conversation_id": "conv_1", "interaction_id": "int_1", "new_conversation": True}

    async def finish(self, ctx: CallContext, body: dict[str, Any], reported_gaps: int = 0) -> dict[str, Any]:
        if self.failure is not None:
            raise self.failure
        self.finished.append((body, reported_gaps))
        return {"conversation_id": "conv_1", "interaction_id": body["interaction_id"],
                "outcome": body["outcome"], "execution_status": "succeeded",
                "evidence_status": "not_captured", "operations": 0}

    async def begin_operation(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("handler began an operation")

    def complete_in_background(self, ctx: CallContext, interaction_id: str, body: dict[str, Any]) -> None:
        raise AssertionError("handler completed an operation")

    async def drain(self, interaction_id: str | None = None, timeout: float = 10.0) -> None:
        return None

    async def remember_gap(self, interaction_id: str) -> None:
        raise AssertionError("handler counted a gap")


def deps(services: FakeServices | None = None, **overrides: Any) -> Deps:
    services = services or FakeServices()
    settings = GatewaySettings()
    values: dict[str, Any] = {
        "settings": settings, "services": services,
        "access": AccessChecker(services.ontology_query, ttl_seconds=0),
        "idempotency": UnusedIdempotency(), "trace": FakeTraceCore(),
        "registry": build_registry(settings), "actions": MemoryActionSubmissions(),
        "events": FakePublisher(),
    }
    return Deps(**{**values, **overrides})


def context(account: str = "alice", language: Language = "en-US") -> CallContext:
    return CallContext(Principal(account=account, kind="user", via="app_key"), language,
                       request_id="req-1", transport="rest")
