"""trace-recorder seals finished interactions: their records go into a hash chain
(:mod:`.chain_records`, ``bkn_common.provenance.chain``) whose head it signs with its seal key,
published as ``trace.interaction.sealed`` (so a rebuilt view holds the same seals). A record
that lands after a seal (a late receipt, an operation completed after the finish) is appended
by the next seal, with a new signed head; earlier heads stay.

Which interactions to look at: those the consumer's batches touch (:class:`NotingProjection`
wraps the view for the projection runner and tells the sealer the interaction ids of every
start, finish, operation, evidence and receipt it folds), looked at on the next sweep; and, once
after the view has replayed, every interaction finished within ``window_seconds`` (what
happened while this replica was down). Sealing one interaction holds its lock (Redis), so two
replicas never number two seals alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import EventRecord
from bkn_common.provenance.chain import entry, extend, genesis, seal_payload
from bkn_common.provenance.keys import Keyring
from trace_recorder.service_layer.chain_records import chain_records
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.view_ports import LogProjection, Position

log = logging.getLogger(__name__)


class Sealer:
    def __init__(self, core: Core, keyring: Keyring | None, *, window_seconds: float = 900.0,
                 batch: int = 500, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._core = core
        self._keyring = keyring
        self._window = window_seconds
        self._batch = batch
        self._clock = clock
        self._due: set[str] = set()

    @property
    def enabled(self) -> bool:
        return self._keyring is not None and self._keyring.signer("seal") is not None

    async def seal(self, interaction_id: str) -> ev.InteractionSealed | None:
        """Seal what of the interaction is not sealed yet; the new seal, or None (active,
        unknown, nothing new, or no seal key)."""
        key = self._keyring.signer("seal") if self._keyring is not None else None
        if key is None:
            return None
        store = self._core.store
        interaction = store.interaction(interaction_id)
        if interaction is None or interaction.active:  # one row, not every record of a long turn
            return None
        async with self._core.lock("seal", interaction_id):
            records = store.interaction_records(interaction_id)
            if records is None or records.interaction.active:
                return None
            seals = store.seals_of(interaction_id)
            sealed = {(e["kind"], e["ref"]) for s in seals for e in s.entries}
            new = [entry(kind, ref, data) for kind, ref, data in chain_records(records)
                   if (kind, ref) not in sealed]
            if not new:
                return None
            start = seals[-1].length if seals else 0
            head = extend(seals[-1].head if seals else genesis(interaction_id), start, new)
            seq, length, sealed_at = (seals[-1].seq if seals else 0) + 1, start + len(new), self._clock()
            signature = key.sign(seal_payload(interaction_id, seq, length, head, sealed_at.isoformat(), key.kid))
            event = ev.InteractionSealed(
                conversation_id=records.interaction.conversation_id, interaction_id=interaction_id,
                seq=seq, length=length, entries=tuple(new), head=head, sealed_at=sealed_at,
                key_id=key.kid, signature=signature,
            )
            await self._core.record(event)
            return event

    def note(self, events: Sequence[ev.Event]) -> None:
        """Remember the interactions ``events`` touch: the next sweep looks at them."""
        for event in events:
            interaction_id = getattr(event, "interaction_id", None)
            if isinstance(interaction_id, str) and interaction_id and not isinstance(event, ev.InteractionSealed):
                self._due.add(interaction_id)

    def catch_up(self) -> int:
        """Mark every interaction finished within the window (after a start); how many."""
        since = (self._clock() - timedelta(seconds=self._window)).isoformat()
        marked = 0
        while True:
            found = self._core.store.finished_since(since, self._batch)
            self._due.update(interaction_id for interaction_id, _ in found)
            marked += len(found)
            if len(found) < self._batch or found[-1][1] == since:
                return marked
            since = found[-1][1]

    async def sweep(self) -> int:
        """Seal what the noted interactions have that is not sealed; how many got a seal.
        One that fails stays noted for the next sweep."""
        due, self._due = self._due, set()
        sealed = 0
        for interaction_id in sorted(due):
            try:
                if await self.seal(interaction_id) is not None:
                    sealed += 1
            except Exception:
                self._due.update(due)  # Redis, Kafka or the database away: all again next time
                raise
        return sealed

    async def run(self, every_seconds: float, ready: asyncio.Event) -> None:
        """Sweep every ``every_seconds`` once the view has replayed (a background task)."""
        if not self.enabled:
            log.warning("no seal key (PROVENANCE_KEYS_FILE): finished interactions are not sealed")
            return
        await ready.wait()
        self.catch_up()
        while True:
            try:
                await self.sweep()
            except Exception as exc:  # Redis, Kafka or the database away: the next sweep retries
                log.warning("sealing sweep failed: %s", exc)
            await asyncio.sleep(every_seconds)


class NotingProjection:
    """The view as the projection runner sees it (``apply``, ``apply_batch``, ``positions``),
    telling the sealer what each folded batch touched once it is stored."""

    def __init__(self, view: LogProjection, sealer: Sealer) -> None:
        self._view = view
        self._sealer = sealer

    def apply(self, record: EventRecord) -> None:
        self._view.apply(record)
        self._sealer.note([record.event])

    async def apply_batch(self, events: Sequence[ev.Event], positions: Mapping[Position, int]) -> None:
        await self._view.apply_batch(events, positions)
        self._sealer.note(events)

    def positions(self) -> dict[Position, int]:
        return self._view.positions()
