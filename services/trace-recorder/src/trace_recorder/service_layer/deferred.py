"""Deferred pending records: a begun operation's pending record goes to the log only if the
operation is still pending ``Policy.pending_record_delay_seconds`` after its begin.

Most operations complete within milliseconds, and their final record carries ``begun_at``,
so the pending record would be read by nobody: deferring it saves a record and a Kafka round
trip on the caller's path. Nothing may be lost for it, so the pending record waits in the
coordination store, written by the same atomic step as the begin claim (no extra round trip)
and, until it reaches the log, it is **not** in the view: the view never holds an operation
the log does not have. Each replica keeps a copy of the ones it began (``complete`` on the
same replica needs no lookup; one on another replica reads the coordination store).

It reaches the log, with acks=all and then the view, when the first of these happens:

* any replica's sweep (every second) finds it due: the operation is still pending, or its
  begin's replica died;
* a replica starts: once its view is replayed and before it is ready it publishes every
  deferred record still waiting (a replica that was killed left them behind; those of live
  replicas cost a record early, harmlessly);
* this replica stops cleanly: it publishes those it began.

The operation's final record makes it unnecessary (``complete`` forgets it). A pending record
that arrives after the final one changes nothing (the view keeps the first final record).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from bkn_common.contracts.events import OperationRecorded, decode_event, encode_event
from trace_recorder.domain.model import Operation
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.ports import CoordinationUnavailable, Deferred
from trace_recorder.service_layer.recording import Core, PublishFailed
from trace_recorder.service_layer.store import TraceStore

_log = logging.getLogger(__name__)

LEASE_SECONDS = 30
"""A taken record is due again this much later if its taker died before publishing it."""
BATCH = 500
"""Deferred records taken per step of a sweep."""
RECOVERY_BATCH = 20_000
"""Deferred records a start takes at once (a crash leaves at most its in-flight calls')."""
TTL_SECONDS = 7 * 24 * 3600
"""Safety net: a deferred record nobody took for a week leaves the coordination store."""


def _as_operation(event: OperationRecorded) -> Operation:
    """The pending operation a record describes, as the view will hold it."""
    fold = TraceStore()
    fold.apply_events([event])
    return fold.operations[event.operation_id]


class PendingRecords:
    """The deferred pending records of one replica; see the module docstring."""

    def __init__(self, core: Core) -> None:
        self._core = core
        self._held: dict[str, tuple[OperationRecorded, float]] = {}
        self.recovered = asyncio.Event()
        """Set once the records left by a previous run are on the log (readiness)."""

    @property
    def enabled(self) -> bool:
        return self._core.policy.pending_record_delay_seconds > 0

    def deferred(self, event: OperationRecorded) -> Deferred:
        """What the begin claim stores with a new operation."""
        return Deferred(
            index=Keys.deferred_index(), key=Keys.deferred(event.operation_id),
            member=event.operation_id, record=encode_event(event).decode(),
            delay_seconds=self._core.policy.pending_record_delay_seconds, ttl=TTL_SECONDS)

    def hold(self, event: OperationRecorded) -> Operation:
        """Keep this replica's copy of a record the claim deferred; the operation as begun."""
        logged = decode_event(encode_event(event)).event  # as the log would give it back
        assert isinstance(logged, OperationRecorded)
        self._held[logged.operation_id] = (logged, time.monotonic())
        return _as_operation(logged)

    async def operation(self, operation_id: str) -> Operation | None:
        """A begun operation whose pending record is deferred (this replica's or another's)."""
        held = self._held.get(operation_id)
        if held is not None:
            return _as_operation(held[0])
        if not self.enabled:
            return None
        text = await self._core.coordination.get(Keys.deferred(operation_id))
        if text is None:
            return None
        event = decode_event(text.encode()).event
        return _as_operation(event) if isinstance(event, OperationRecorded) else None

    async def forget(self, operation_id: str) -> None:
        """The record is not needed (its operation is final, or its begin failed)."""
        self._held.pop(operation_id, None)
        await self._core.coordination.forget(
            Keys.deferred_index(), Keys.deferred(operation_id), operation_id)

    async def publish_due(self, *, everything: bool = False) -> int:
        """Publish the deferred records that fell due (``everything``: all of them, at most
        :data:`RECOVERY_BATCH`) unless their operation is in the view already; returns how
        many it took."""
        taken = await self._core.coordination.take_due(
            Keys.deferred_index(), Keys.deferred(""), lease_seconds=LEASE_SECONDS,
            limit=RECOVERY_BATCH if everything else BATCH, everything=everything)
        for _, text in taken:
            event = decode_event(text.encode()).event
            if isinstance(event, OperationRecorded):
                await self._publish(event)
        return len(taken)

    async def _publish(self, event: OperationRecorded) -> None:
        core = self._core
        if core.store.operation(event.operation_id) is None:
            try:
                await core.record(event)
            except PublishFailed as exc:  # taken again once its lease ends
                _log.warning("deferred pending record of %s not published: %s",
                             event.operation_id, exc)
                return
        with contextlib.suppress(CoordinationUnavailable):  # a later sweep finds it recorded
            await self.forget(event.operation_id)

    async def run(self, replayed: asyncio.Event, interval: float = 1.0) -> None:
        """Once the view is replayed: publish what a previous run left, then sweep forever."""
        await replayed.wait()
        while not self.recovered.is_set():
            try:
                if self.enabled:
                    await self.publish_due(everything=True)
                self.recovered.set()
            except CoordinationUnavailable as exc:
                _log.warning("deferred pending records not recovered yet: %s", exc)
                await asyncio.sleep(interval)
        if not self.enabled:
            return
        while True:
            await asyncio.sleep(min(interval, self._core.policy.pending_record_delay_seconds))
            try:
                while await self.publish_due() >= BATCH:
                    pass
            except CoordinationUnavailable as exc:
                _log.warning("deferred pending records not swept: %s", exc)
            self._expire_copies()

    def _expire_copies(self) -> None:
        """Drop copies of operations another replica took care of and nobody completed."""
        cut = time.monotonic() - self._core.policy.pending_timeout_seconds
        for operation_id in [k for k, (_, at) in self._held.items() if at < cut]:
            del self._held[operation_id]

    async def drain(self) -> None:
        """At a clean stop: publish the deferred records this replica began."""
        for event, _ in list(self._held.values()):
            with contextlib.suppress(Exception):
                await self._publish(event)


__all__ = ["PendingRecords"]
