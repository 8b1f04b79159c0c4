"""What a derived store offers the :class:`~bkn_common.framework.projection.ProjectionRunner` that feeds
it from Kafka: :class:`Projection` (record by record; the runner keeps the positions) or
:class:`BatchProjection` (a store in a database that keeps the offsets it reflects)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from bkn_common.contracts.events import Event, EventRecord


class Projection(Protocol):
    """A derived store fed by events."""

    def apply(self, record: EventRecord) -> None:
        """Apply one event idempotently; raise to reject it (it goes to the dead-letter topic)."""


@runtime_checkable
class BatchProjection(Protocol):
    """A derived store that keeps the offsets it reflects (see :mod:`bkn_common.framework.projection`)."""

    def apply(self, record: EventRecord) -> None: ...

    async def apply_batch(
        self, events: Sequence[Event], positions: Mapping[tuple[str, int], int]
    ) -> None:
        """Apply ``events`` in order and store ``positions`` (next offset per (topic,
        partition)) in one transaction."""

    def positions(self) -> dict[tuple[str, int], int]:
        """Where to resume: the positions of the last batch written per partition."""
        ...
