"""How the lifecycle and operation handlers record: :class:`Core` holds their dependencies
(store, event sink, coordination, policy, clock) and ``record`` — publish an event, then apply
it to the store (read-your-writes). Coordination keys are in :mod:`.keys`, the policy in
:mod:`.policy`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bkn_common.background import BackgroundTasks
from bkn_common.errors import ApiError
from bkn_common.events import Event, OperationRecorded, decode_event, encode_event
from trace_recorder.domain.errors import TraceCode
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.ports import Coordination, EventSink, TraceView


def unavailable(reason: str) -> ApiError:
    return ApiError(TraceCode.TRACE_CORE_UNAVAILABLE, 503, params={"reason": reason},
                    details={"reason": reason})


class PublishFailed(Exception):
    """Kafka did not acknowledge an event in time."""


_log = logging.getLogger(__name__)


@dataclass
class Core:
    """Dependencies of the handlers."""

    store: TraceView
    events: EventSink
    coordination: Coordination
    policy: Policy
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    _background: BackgroundTasks = field(default_factory=BackgroundTasks, repr=False)
    _flushing: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def lock(self, kind: str, name: str) -> AbstractAsyncContextManager[None]:
        return self.coordination.lock(Keys.lock(kind, name), self.policy.lock_timeout_seconds)

    async def record(self, *events: Event) -> None:
        """Publish (acks=all, pipelined), then apply each event to the store.

        The store gets the event exactly as the consumer will decode it from the log, so the
        live store and a rebuilt one hold identical values.
        """
        try:
            await asyncio.wait_for(
                self._publish(events), timeout=self.policy.publish_timeout_seconds
            )
        except Exception as exc:
            raise PublishFailed(f"{type(exc).__name__}: {exc}") from exc
        self.store.apply_events([decode_event(encode_event(e)).event for e in events])

    def record_pending(self, event: OperationRecorded, attempts: int = 5) -> None:
        """Apply a pending operation now and publish it in the background, only if it is still
        pending after ``Policy.pending_record_delay_seconds`` (or at shutdown). Its final
        record supersedes it and carries ``begun_at``, and is applied here only once Kafka
        acknowledged it, so an operation final by then needs no pending record on the log
        (the store never lets a pending record overwrite a final one, so their order on the
        log does not matter either)."""
        self.store.apply_events([decode_event(encode_event(event)).event])

        async def publish() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._flushing.wait(), self.policy.pending_record_delay_seconds)
            op = self.store.operation(event.operation_id)
            if op is not None and op.final:
                return
            for attempt in range(attempts):
                try:
                    await asyncio.wait_for(self.events.publish(event),
                                           timeout=self.policy.publish_timeout_seconds)
                    return
                except Exception:
                    await asyncio.sleep(0.2 * (attempt + 1))
            _log.warning("gave up publishing %s after %d attempts", event.type, attempts)

        self._background.spawn(publish())

    async def drain(self) -> None:
        """Publish the pending records still waiting and wait for background publishes (at
        shutdown)."""
        self._flushing.set()
        await self._background.drain(self.policy.publish_timeout_seconds)

    async def _publish(self, events: Sequence[Event]) -> None:
        if len(events) == 1:
            await self.events.publish(events[0])
        else:
            await self.events.publish_many(events)


__all__ = ["Core", "PublishFailed", "unavailable"]
