"""How the lifecycle and operation handlers record: :class:`Core` holds their dependencies
(store, event sink, coordination, policy, clock) and ``record`` — publish an event, then apply
it to the store (read-your-writes). Coordination keys are in :mod:`.keys`, the policy in
:mod:`.policy`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.events import Event, decode_event, encode_event
from trace_recorder.domain.errors import TraceCode
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.ports import Coordination, EventSink
from trace_recorder.service_layer.view_ports import RecorderStore


def unavailable(reason: str) -> ApiError:
    return ApiError(TraceCode.TRACE_CORE_UNAVAILABLE, 503, params={"reason": reason},
                    details={"reason": reason})


class PublishFailed(Exception):
    """Kafka did not acknowledge an event in time."""


@dataclass
class Core:
    """Dependencies of the handlers."""

    store: RecorderStore
    events: EventSink
    coordination: Coordination
    policy: Policy
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)

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

    async def _publish(self, events: Sequence[Event]) -> None:
        if len(events) == 1:
            await self.events.publish(events[0])
        else:
            await self.events.publish_many(events)


__all__ = ["Core", "PublishFailed", "unavailable"]
