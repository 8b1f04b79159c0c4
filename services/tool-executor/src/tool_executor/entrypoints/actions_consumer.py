"""Kafka subscriber of the ACTIONS topic: each ``action.execution.requested`` goes to the runner.

One consumer group (``<prefix>tool-executor.actions``) shares the partitions between
tool-executor replicas. Offsets are committed by hand, after a record was handled, so a crash
redelivers the request; the runner makes that harmless. A new group starts at the earliest
offset, so no request published before the group first joined is missed (the runner refuses
to act on requests older than its age limit). Records it cannot decode go to the
dead-letter topic. It starts consuming only after the factory's projection caught up, so
permission and gate checks see the current catalogue.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import PoisonMessage, decode_event
from bkn_common.contracts.topics import ACTIONS, dead_letter_topic
from bkn_common.infra.dead_letter import dead_letter
from bkn_common.infra.kafka_connection import KafkaConnection
from bkn_common.infra.settings import ServiceSettings
from tool_executor.service_layer.actions import ActionRunner

log = logging.getLogger(__name__)
CONSUMER_NAME = "tool-executor"
DRAIN_SECONDS = 10.0


class ActionConsumer:
    def __init__(
        self, settings: ServiceSettings, runner: ActionRunner, caught_up: asyncio.Event
    ) -> None:
        self._kafka = KafkaConnection.from_settings(settings)
        self._fetch_max_wait_ms = settings.kafka_fetch_max_wait_ms
        self._topic = ACTIONS.full_name(settings.topic_prefix)
        self._group = f"{settings.topic_prefix}tool-executor.actions"
        self._dlq = dead_letter_topic(CONSUMER_NAME).full_name(settings.topic_prefix)
        self._runner = runner
        self._caught_up = caught_up
        self._stopping = asyncio.Event()
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task[None] | None = None
        self.handled = 0
        self.dead_lettered = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        self._producer = AIOKafkaProducer(**self._kafka.client_options(), acks="all",
                                          enable_idempotence=True)
        await self._producer.start()
        self._consumer = AIOKafkaConsumer(
            self._topic, **self._kafka.client_options(), group_id=self._group,
            client_id=f"{CONSUMER_NAME}-actions", enable_auto_commit=False,
            auto_offset_reset="earliest", fetch_max_wait_ms=self._fetch_max_wait_ms,
        )
        await self._consumer.start()
        self._task = asyncio.create_task(self._run(), name="tool-executor-actions")

    async def stop(self) -> None:
        """Finish the call in flight (up to :data:`DRAIN_SECONDS`), then leave the group."""
        self._stopping.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._task), DRAIN_SECONDS)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._consumer is not None:
            await self._consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    async def _run(self) -> None:
        assert self._consumer is not None
        while not self._caught_up.is_set():
            if self._stopping.is_set():
                return
            await asyncio.sleep(0.1)
        while not self._stopping.is_set():
            try:
                batches = await self._consumer.getmany(timeout_ms=200, max_records=50)
            except Exception as exc:  # broker hiccup: keep trying
                log.warning("action consumer fetch failed: %s", exc)
                await asyncio.sleep(1)
                continue
            await asyncio.gather(*(self._drain(tp, records) for tp, records in batches.items()))

    async def _drain(self, tp: TopicPartition, records: list[ConsumerRecord[bytes, bytes]]) -> None:
        """One partition's records in order (partitions run side by side)."""
        assert self._consumer is not None
        for record in records:
            if not await self._handle(record):
                self._consumer.seek(tp, record.offset)  # redeliver it later
                return
            await self._commit(tp, record.offset + 1)

    async def _handle(self, record: ConsumerRecord[bytes, bytes]) -> bool:
        """True when the record is dealt with (commit it), False when it must come again."""
        try:
            event = decode_event(record.value).event
        except PoisonMessage as exc:
            await self._dead_letter(record, exc.reason)
            return True
        if not isinstance(event, ev.ActionExecutionRequested):
            return True  # progress updates share the topic
        try:
            end = await self._runner.run(event, self._stopping)
        except Exception:  # e.g. Redis or Kafka down: retry the same request after a pause
            log.exception("action execution %s could not be handled", event.execution_id)
            await asyncio.sleep(1)
            return False
        self.handled += end == "finished"
        return end == "finished"

    async def _commit(self, tp: TopicPartition, offset: int) -> None:
        assert self._consumer is not None
        try:
            await self._consumer.commit({tp: offset})
        except Exception as exc:  # a rebalance took the partition: the next owner redelivers
            log.warning("committing %s@%d failed: %s", tp, offset, exc)

    async def _dead_letter(self, record: ConsumerRecord[bytes, bytes], reason: str) -> None:
        assert self._producer is not None
        await dead_letter(self._producer, self._dlq, record, reason,
                          consumer=f"{CONSUMER_NAME}-actions")
        self.dead_lettered += 1

