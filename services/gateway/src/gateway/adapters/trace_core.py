"""The trace core (trace-recorder) over HTTP, plus the outage gap counter in Redis (the
``TraceCore`` port)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from redis.asyncio import Redis

from bkn_common.contracts.errors import ApiError
from gateway.domain.context import CallContext
from gateway.service_layer.ports import InternalService

log = logging.getLogger(__name__)


class RemoteTraceCore:
    def __init__(self, service: InternalService, redis: Redis, prefix: str, probe_timeout: float = 0.5) -> None:
        self._service = service
        self._redis = redis
        self._prefix = prefix
        self._probe_timeout = probe_timeout
        self._completing: dict[str, set[asyncio.Task[None]]] = {}

    async def _call(self, ctx: CallContext, path: str, body: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = await self._service.call(
            "POST", path, json=body, account=ctx.principal.account,
            language=ctx.language, request_id=ctx.request_id,
        )
        return result

    async def probe(self, ctx: CallContext) -> dict[str, Any] | None:
        """A bounded read-only probe: the policy when the core answers, None when it does not."""
        try:
            result: dict[str, Any] = await self._service.call(
                "GET", "/internal/v1/probe", language=ctx.language, timeout=self._probe_timeout
            )
            return result
        except ApiError:
            return None

    async def start(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]:
        return await self._call(ctx, "/internal/v1/interactions/start", body)

    async def finish(
        self, ctx: CallContext, body: dict[str, Any], reported_gaps: int = 0
    ) -> dict[str, Any]:
        """trace-recorder waits for the turn's operations still completing, on any replica
        (this one's background completions included), before it records the finish.
        Unrecorded calls are the larger of the gaps counted here and those the client
        reported (``partial_reasons``)."""
        gaps = await self._redis.get(self._gap_key(body.get("interaction_id", "")))
        unrecorded = max(int(gaps or 0), reported_gaps)
        return await self._call(
            ctx, "/internal/v1/interactions/finish", {**body, "unrecorded_calls": unrecorded}
        )

    async def begin_operation(self, ctx: CallContext, body: dict[str, Any]) -> dict[str, Any]:
        return await self._call(ctx, "/internal/v1/operations/begin", body)

    def complete_in_background(self, ctx: CallContext, interaction_id: str, body: dict[str, Any]) -> None:
        """Complete an operation without holding up the caller (trace-recorder's finish waits
        for it; shutdown drains these)."""

        async def complete() -> None:
            try:
                await self._call(ctx, "/internal/v1/operations/complete", body)
            except ApiError as exc:  # the trace core resumes pending operations on retry
                log.warning("completing %s failed: %s", body.get("operation_id"), exc.code)

        task = asyncio.get_running_loop().create_task(complete())
        tasks = self._completing.setdefault(interaction_id, set())
        tasks.add(task)

        def forget(done: asyncio.Task[None]) -> None:
            tasks.discard(done)
            if not tasks:
                self._completing.pop(interaction_id, None)

        task.add_done_callback(forget)

    async def drain(self, interaction_id: str | None = None, timeout: float = 10.0) -> None:
        """Wait for background completions (of one interaction, or all of them)."""
        if interaction_id is None:
            tasks = {t for group in self._completing.values() for t in group}
        else:
            tasks = set(self._completing.get(interaction_id, ()))
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    def _gap_key(self, interaction_id: str) -> str:
        return f"{self._prefix}gap:{interaction_id}"

    async def remember_gap(self, interaction_id: str) -> None:
        """Count a managed call that ran unrecorded; finish reports evidence as partial."""
        key = self._gap_key(interaction_id)
        await self._redis.incr(key)
        await self._redis.expire(key, 7 * 24 * 3600)
