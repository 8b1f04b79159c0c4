"""Fakes of the gateway's ports for handler tests: internal services answering from a table,
a publisher that keeps what it published, and ``deps()`` wiring them with the memory adapters."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import Language
from gateway.adapters.memory_action_submissions import MemoryActionSubmissions
from gateway.domain.context import CallContext
from gateway.domain.identity import Principal
from gateway.service_layer.access import AccessChecker
from gateway.service_layer.catalog import build_registry
from gateway.service_layer.deps import Deps
from gateway.service_layer.ports import FINAL_STATES, Claim, upgraded
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
    raise); a route it lacks is what ``HttpService`` makes of a service's bare 404: 503
    ``dependency_unavailable`` (tests/contracts/internal_service.py)."""

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
            # as HttpService answers a 404 that is not a service's refusal (no such route)
            raise ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": self.name},
                           details={"dependency": self.name, "status": 404})
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
    """Invocation-id records in a dict, as the Idempotency port keeps them: each lives
    ``ttl_seconds`` on ``clock`` (a release keeps its claim's deadline), outcomes are kept as
    JSON, a waiter wakes when the record changes (its ``timeout`` runs on the event loop's
    clock), and with ``available`` False reads are refused as an unreachable store's are.
    The contract it passes with ``RedisIdempotency``: tests/contracts/invocation_records.py."""

    def __init__(self, ttl_seconds: int = 24 * 3600, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl, self.clock, self.available = ttl_seconds, clock, True
        self._records: dict[tuple[str, str, str], tuple[Claim, float]] = {}
        self._changed = asyncio.Event()

    @property
    def records(self) -> dict[tuple[str, str, str], Claim]:
        """The records alive now, by (account, tool, invocation id)."""
        now = self.clock()
        return {key: claim for key, (claim, until) in self._records.items() if until > now}

    def _read(self, key: tuple[str, str, str]) -> Claim | None:
        if not self.available:
            raise ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": "redis"},
                           details={"dependency": "redis", "error": "DictIdempotency.available"})
        return self.records.get(key)

    def _write(self, key: tuple[str, str, str], claim: Claim, until: float | None = None) -> None:
        if not self.available:  # a record not written after the call is not the caller's error
            return
        self._records[key] = (claim, self.clock() + self.ttl if until is None else until)
        self._changed.set()
        self._changed = asyncio.Event()

    async def claim(self, account: str, tool: str, invocation_id: str, input_hash: str) -> Claim:
        key = (account, tool, invocation_id)
        held = self._read(key)
        if held is None or held.state == "retryable":
            attempt = 0 if held is None else held.attempt + 1
            self._write(key, Claim("running", input_hash, attempt=attempt))
            return Claim("fresh", input_hash, attempt=attempt)
        return upgraded(held)

    async def wait_done(self, account: str, tool: str, invocation_id: str, timeout: float) -> Claim | None:
        key = (account, tool, invocation_id)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while (held := self._read(key)) is not None and held.state == "running":
                    await self._changed.wait()
        held = self._read(key)
        return upgraded(held) if held is not None and held.state in FINAL_STATES else None

    async def complete(self, account: str, tool: str, invocation_id: str, input_hash: str, result: Any) -> None:
        self._write((account, tool, invocation_id), Claim("done", input_hash, result=json.loads(json.dumps(result))))

    async def fail(self, account: str, tool: str, invocation_id: str, input_hash: str, error: dict[str, Any]) -> None:
        self._write((account, tool, invocation_id), Claim("failed", input_hash, error=json.loads(json.dumps(error))))

    async def release(self, account: str, tool: str, invocation_id: str) -> None:
        key = (account, tool, invocation_id)
        held = self.records.get(key)
        if held is not None and held.state == "running":
            self._write(key, Claim("retryable", held.input_hash, attempt=held.attempt), self._records[key][1])


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


class OperationLog(FakeTraceCore):
    """Operations as trace-recorder keeps them, keyed by (interaction, correlation, tool): a
    new key is begun; the key again is 409 ``receipt_pending`` until it is completed, then it
    replays (receipt status and stored result); with another input hash it is 409
    ``idempotency_conflict``. Interactions are not checked (any id is active). The contract
    it passes with ``RemoteTraceCore`` on a real trace-recorder: tests/contracts/trace_core.py."""

    def __init__(self) -> None:
        super().__init__()
        self.operations: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.correlations: list[str] = []

    async def probe(self, ctx: CallContext) -> dict[str, Any] | None:
        return {"available": True, "capture_enabled": True}

    async def begin_operation(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]:
        key = (body["interaction_id"], body["correlation"], body["tool_name"])
        self.correlations.append(body["correlation"])
        op = self.operations.get(key)
        if op is None:
            n = len(self.operations)
            op = self.operations[key] = {"operation_id": f"op_{n}", "receipt_id": f"rcpt_{n}",
                                         "input_hash": body["input_hash"], "receipt_status": "pending",
                                         "result": None}
            return {"status": "new", "operation_id": op["operation_id"], "receipt_id": op["receipt_id"],
                    "receipt_status": "pending", "evidence_durability": "pending"}
        ids = {"operation_id": op["operation_id"], "receipt_id": op["receipt_id"]}
        if op["input_hash"] != body["input_hash"]:
            raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409,
                           details={"operation_id": op["operation_id"], "correlation": body["correlation"]})
        if op["receipt_status"] == "pending":
            raise ApiError("receipt_pending", 409, params={"operation_id": op["operation_id"]}, details=ids)
        return {"status": "replay", **ids, "receipt_status": op["receipt_status"],
                "stored_result": op["result"], "result_omitted": False}

    def complete_in_background(self, ctx: CallContext, interaction_id: str, body: dict[str, Any]) -> None:
        op = next(o for o in self.operations.values() if o["operation_id"] == body["operation_id"])
        op.update(receipt_status=body["receipt_status"], result=json.loads(json.dumps(body["result"])))


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
