"""trace-recorder seals finished interactions: their records go into a hash chain
(:mod:`.chain_records`, ``bkn_common.provenance.chain``) whose head it signs with its seal key,
published as ``trace.interaction.sealed`` (so a rebuilt view holds the same seals). A record
that lands after a seal (a late receipt, an operation completed after the finish) is appended
by the next seal, with a new signed head; earlier heads stay.

Every replica sweeps the interactions finished within ``window_seconds``; an interaction is
looked at again after a quarter of its age (0.5 s, 1 s, 2 s, ... after its finish), so a sweep
costs little while late records are still caught. Sealing one interaction holds its lock
(Redis), so two replicas never number two seals alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bkn_common import events as ev
from bkn_common.provenance.chain import entry, extend, genesis, seal_payload
from bkn_common.provenance.keys import Keyring
from trace_recorder.service_layer.chain_records import chain_records
from trace_recorder.service_layer.recording import Core

log = logging.getLogger(__name__)


class Sealer:
    def __init__(self, core: Core, keyring: Keyring | None, *, window_seconds: float = 900.0,
                 batch: int = 500, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._core = core
        self._keyring = keyring
        self._window = window_seconds
        self._batch = batch
        self._clock = clock
        self._looked: dict[str, datetime] = {}

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

    async def sweep(self) -> int:
        """Seal the recently finished interactions that are due a look; how many got a seal."""
        now = self._clock()
        since = (now - timedelta(seconds=self._window)).isoformat()
        sealed = 0
        due = []
        for interaction_id, finished_at in self._core.store.finished_since(since, self._batch):
            age = (now - datetime.fromisoformat(finished_at)).total_seconds()
            looked = self._looked.get(interaction_id)
            if looked is None or (now - looked).total_seconds() >= max(0.5, age / 4):
                due.append(interaction_id)
        for interaction_id in due:
            self._looked[interaction_id] = now
            if await self.seal(interaction_id) is not None:
                sealed += 1
        cut = now - timedelta(seconds=self._window)
        self._looked = {i: t for i, t in self._looked.items() if t >= cut}
        return sealed

    async def run(self, every_seconds: float, ready: asyncio.Event) -> None:
        """Sweep every ``every_seconds`` once the view has replayed (a background task)."""
        if not self.enabled:
            log.warning("no seal key (PROVENANCE_KEYS_FILE): finished interactions are not sealed")
            return
        await ready.wait()
        while True:
            try:
                await self.sweep()
            except Exception as exc:  # Redis, Kafka or the database away: the next sweep retries
                log.warning("sealing sweep failed: %s", exc)
            await asyncio.sleep(every_seconds)
