"""An event sink that keeps events in a list: the EventSink port without Kafka (tests, dry
runs). ``fail_with`` makes every publish raise, as an unreachable broker would."""

from __future__ import annotations

from collections.abc import Sequence

from bkn_common.contracts.events import Event


class MemoryEventSink:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.fail_with: Exception | None = None

    async def publish(self, event: Event) -> None:
        if self.fail_with is not None:
            raise self.fail_with
        self.events.append(event)

    async def publish_many(self, events: Sequence[Event]) -> None:
        for event in events:
            await self.publish(event)

    def of_type(self, kind: type[Event]) -> list[Event]:
        return [e for e in self.events if isinstance(e, kind)]
