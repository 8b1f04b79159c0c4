"""Materialized views: replay topics from offset zero into a derived store.

A :class:`ProjectionRunner` assigns every partition of its topics, reads from the beginning
(or from positions a persistent store remembers), applies each record to a
:class:`~bkn_common.framework.projection_ports.Projection` and only then advances the position it keeps
with that state, so a crash never skips a record and redelivery is harmless (projections are idempotent upserts).
A record that can never be applied goes to the consumer's dead-letter topic with the reason,
and the runner moves on. ``caught_up`` tells readiness probes the initial replay finished.

A :class:`~bkn_common.framework.projection_ports.BatchProjection` (a store in a database) gets each
fetched batch with the offsets it reaches, to write both in one transaction, and tells the
runner where to resume at start; a failure it reports as transient (``transient``) is
retried, never dead-lettered. Batches are
written one at a time, in order; the runner fetches and decodes the next batch while the
previous one is being written (the write runs in a worker thread), and moves its positions only
once a batch is written. ``owns``
limits the runner to some partitions (replicas splitting the topics between them).

With a :class:`~bkn_common.framework.checkpoint.CheckpointFile` (and a projection that is
:class:`~bkn_common.framework.checkpoint.Checkpointable`) the runner restores the store from the
checkpoint at start and resumes at its offsets, rewrites it every interval once caught up and
at a clean stop; an unusable checkpoint is logged and ignored (replay from offset zero). How:
:mod:`bkn_common.framework.projection_checkpoints`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRecord, TopicPartition

from bkn_common.contracts.events import Event, PoisonMessage, decode_event, decode_payload
from bkn_common.contracts.topics import TopicSpec, dead_letter_topic
from bkn_common.framework import heap
from bkn_common.framework.checkpoint import Checkpoint, CheckpointFile
from bkn_common.framework.projection_checkpoints import ProjectionCheckpoints
from bkn_common.framework.projection_ports import BatchProjection, Projection
from bkn_common.infra.dead_letter import dead_letter
from bkn_common.infra.kafka import topic_partitions
from bkn_common.infra.kafka_connection import KafkaConnection, kafka_connection

log = logging.getLogger(__name__)


class ProjectionRunner:
    """Feeds a projection from Kafka; see the module docstring."""

    def __init__(
        self,
        *,
        bootstrap_servers: str | KafkaConnection,
        consumer_name: str,
        topics: Sequence[TopicSpec],
        projection: Projection,
        topic_prefix: str = "",
        batch_size: int = 5000,
        owns: Callable[[TopicPartition], bool] | None = None,
        transient: tuple[type[Exception], ...] = (),
        checkpoints: CheckpointFile | None = None,
        fetch_max_wait_ms: int = 500,
        fetch_min_bytes: int = 1,
        fetch_max_bytes: int = 64 * 1024 * 1024,
        max_partition_fetch_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        self._kafka = kafka_connection(bootstrap_servers)
        self._fetch_max_bytes = fetch_max_bytes
        self._max_partition_fetch_bytes = max_partition_fetch_bytes
        self._fetch_max_wait_ms = fetch_max_wait_ms
        self._fetch_min_bytes = fetch_min_bytes
        self._consumer_name = consumer_name
        self._topics = [t.full_name(topic_prefix) for t in topics]
        self._dlq_topic = dead_letter_topic(consumer_name).full_name(topic_prefix)
        self._projection = projection
        self._batch_size = batch_size
        self._owns = owns
        self._transient = transient
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        self._task: asyncio.Task[None] | None = None
        self._catch_up_target: dict[TopicPartition, int] = {}
        self.positions: dict[TopicPartition, int] = {}
        self.applied = 0
        self.dead_lettered = 0
        self.caught_up = asyncio.Event()
        self.last_error: str | None = None
        self._checkpoints = ProjectionCheckpoints(consumer_name, checkpoints, projection)
        self._start_positions: dict[TopicPartition, int] = {}
        self._started = False

    async def start(self, positions: dict[TopicPartition, int] | None = None) -> None:
        """Assign all partitions, seek, and start consuming in the background.

        The Kafka clients start together, and a checkpoint (when this start may use one) is
        read and decoded in a worker thread meanwhile, with the collector paused until the
        store is restored: the start waits for the slower of the two, not for both."""
        reads_checkpoint = (positions is None and self._checkpoints.store() is not None
                            and not isinstance(self._projection, BatchProjection))
        pause = heap.Pause() if reads_checkpoint else None
        reading = asyncio.create_task(asyncio.to_thread(self._checkpoints.read)) if reads_checkpoint else None
        try:
            await self._start(positions, reading)
        finally:
            if reading is not None and not reading.done():
                await asyncio.wait([reading])  # its thread runs on anyway: never into a next start
            if pause is not None:
                pause.resume()

    async def _start(self, positions: dict[TopicPartition, int] | None,
                     reading: asyncio.Task[Checkpoint | Exception] | None) -> None:
        self._producer = AIOKafkaProducer(
            **self._kafka.client_options(), acks="all", enable_idempotence=True
        )
        consumer = AIOKafkaConsumer(
            **self._kafka.client_options(),
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            client_id=f"{self._consumer_name}-projection",
            max_partition_fetch_bytes=self._max_partition_fetch_bytes,
            fetch_max_bytes=self._fetch_max_bytes,
            fetch_max_wait_ms=self._fetch_max_wait_ms,
            fetch_min_bytes=self._fetch_min_bytes,
        )
        self._consumer = consumer
        known, _, _ = await asyncio.gather(
            topic_partitions(self._kafka, self._topics), self._producer.start(), consumer.start())
        partitions = [TopicPartition(t, p) for t in self._topics for p in known.get(t, ())
                      if self._owns is None or self._owns(TopicPartition(t, p))]
        missing = [t for t in self._topics if t not in known]
        if missing:
            raise RuntimeError(f"topics missing (run `clctl topics --create`): {missing}")
        if positions is None and isinstance(self._projection, BatchProjection):
            stored = self._projection.positions()
            positions = {tp: stored[(tp.topic, tp.partition)] for tp in partitions
                         if (tp.topic, tp.partition) in stored}
        consumer.assign(partitions)
        self._catch_up_target = await consumer.end_offsets(partitions)
        if positions is None:
            read = await reading if reading is not None else None
            positions = self._checkpoints.restore(self._topics, self._catch_up_target, read)
        for tp in partitions:
            start_at = positions.get(tp)
            if start_at is None:
                await consumer.seek_to_beginning(tp)
            else:
                consumer.seek(tp, start_at)
        for tp in partitions:
            self.positions[tp] = await consumer.position(tp)
        self._start_positions = dict(self.positions)
        self._checkpoints.written = dict(self.positions) if self._checkpoints.written else {}
        self._started = True
        self._check_caught_up()
        # what is alive now (modules, the app, a restored store) lives as long as the process:
        # out of the collector's view, so the full collections a replay's allocations trigger
        # do not walk it again and again
        heap.settle(collect=False)
        self._task = asyncio.create_task(self._run(), name=f"projection-{self._consumer_name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if (self._started and self._checkpoints.file is not None
                and self.positions != self._checkpoints.written):
            try:
                await self.write_checkpoint()
            except Exception as exc:  # never block a shutdown on a full disk
                log.error("%s: checkpoint at stop failed: %s", self._consumer_name, exc)
        self._started = False
        if self._consumer is not None:
            await self._consumer.stop()
        if self._producer is not None:
            await self._producer.stop()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def consumer_name(self) -> str:
        return self._consumer_name

    @property
    def is_caught_up(self) -> bool:
        return self.caught_up.is_set()

    def lag(self) -> int:
        """Records between the positions and the high watermarks the last fetches reported
        (the offsets seen at start until a fetch has reported one); no broker round trip."""
        behind = 0
        for tp, position in self.positions.items():
            end = self._highwater(tp)
            if end is None:
                end = self._catch_up_target.get(tp, position)
            behind += max(0, end - position)
        return behind

    def _highwater(self, tp: TopicPartition) -> int | None:
        if self._consumer is None or not self.running:
            return None
        try:
            end: int | None = self._consumer.highwater(tp)
            return end
        except AssertionError:  # not assigned (any more)
            return None

    async def _run(self) -> None:
        assert self._consumer is not None
        writing: asyncio.Task[None] | None = None  # a BatchProjection's previous batch
        try:
            while True:
                try:
                    batches = await self._consumer.getmany(
                        timeout_ms=100, max_records=self._batch_size
                    )
                except Exception as exc:  # broker hiccup: keep trying, readiness reports it
                    self.last_error = f"fetch failed: {exc}"
                    log.warning("projection %s fetch failed: %s", self._consumer_name, exc)
                    await asyncio.sleep(1)
                    continue
                self.last_error = None
                if isinstance(self._projection, BatchProjection):
                    # decode this batch while the previous one is written; write one at a time
                    events, reached = await self._decode_batch(batches)
                    if writing is not None:
                        await writing
                        writing = None
                    if reached:
                        writing = asyncio.create_task(
                            self._apply_batch(self._projection, batches, events, reached))
                    if writing is not None and self._checkpoint_due():
                        await writing  # a checkpoint holds the positions of what is written
                        writing = None
                else:
                    for tp, records in batches.items():
                        for record in records:
                            await self._apply_until_done(record)
                            self.positions[tp] = record.offset + 1
                    self._check_caught_up()
                if self._checkpoint_due():
                    await self._checkpoint_now()
        finally:
            if writing is not None:
                writing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await writing

    async def _checkpoint_now(self) -> None:
        try:
            await self.write_checkpoint()
        except Exception as exc:  # keep serving; the next interval tries again
            self.last_error = f"checkpoint failed: {exc}"
            log.error("%s: checkpoint failed: %s", self._consumer_name, exc)
            self._checkpoints.postpone()

    async def _decode_batch(
        self, batches: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]],
    ) -> tuple[list[Event], dict[tuple[str, int], int]]:
        """The fetched records' events (poison ones are dead-lettered) and the positions they
        reach."""
        events: list[Event] = []
        reached: dict[tuple[str, int], int] = {}
        for tp, records in batches.items():
            for record in records:
                try:
                    events.append(decode_payload(record.value))
                except PoisonMessage as exc:
                    await self._dead_letter_until_done(record, exc.reason)
                reached[(tp.topic, tp.partition)] = record.offset + 1
        return events, reached

    async def _apply_batch(
        self, projection: BatchProjection,
        batches: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]],
        events: list[Event], reached: dict[tuple[str, int], int],
    ) -> None:
        """Hand the decoded records to the projection with the positions they reach; retry
        while it reports a transient failure. When it rejects the batch otherwise, apply
        record by record to dead-letter the culprit."""
        try:
            await self._until_applied(projection, events, reached)
        except Exception as exc:
            log.warning("%s: a batch was rejected (%s); applying it record by record",
                        self._consumer_name, exc)
            for tp, records in batches.items():
                for record in records:
                    await self._apply_one(projection, tp, record)
        self.applied += len(events)
        for (topic, partition), offset in reached.items():
            self.positions[TopicPartition(topic, partition)] = offset
        self._check_caught_up()

    async def _until_applied(
        self, projection: BatchProjection, events: Sequence[Event],
        reached: Mapping[tuple[str, int], int],
    ) -> None:
        while True:
            try:
                await projection.apply_batch(events, reached)
                self.last_error = None
                return
            except self._transient as exc:
                self.last_error = f"store unavailable: {exc}"
                log.warning("%s: store unavailable, retrying: %s", self._consumer_name, exc)
                await asyncio.sleep(1)

    async def _apply_one(
        self, projection: BatchProjection, tp: TopicPartition, record: ConsumerRecord[bytes, bytes]
    ) -> None:
        position = {(tp.topic, tp.partition): record.offset + 1}
        try:
            event = decode_payload(record.value)
        except PoisonMessage:
            return  # dead-lettered with the batch
        try:
            await self._until_applied(projection, [event], position)
        except Exception as exc:
            await self._dead_letter_until_done(record, f"{type(exc).__name__}: {exc}")
            await self._until_applied(projection, [], position)

    async def _dead_letter_until_done(self, record: ConsumerRecord[bytes, bytes], reason: str) -> None:
        await self._until_done(record, lambda: self._dead_letter(record, reason))

    async def _until_done(
        self, record: ConsumerRecord[bytes, bytes], step: Callable[[], Awaitable[None]]
    ) -> None:
        """Run ``step`` (apply or dead-letter ``record``) until it succeeds: a failure here is
        the dead-letter topic's, so the same record is retried every second (the position
        does not move past a record that went nowhere)."""
        while True:
            try:
                await step()
                return
            except Exception as exc:
                self.last_error = f"dead-lettering failed: {exc}"
                log.error("%s: cannot dead-letter %s@%d: %s", self._consumer_name,
                          record.topic, record.offset, exc)
                await asyncio.sleep(1)

    # -- checkpoints ----------------------------------------------------------------------
    @property
    def checkpoint_status(self) -> str:
        return self._checkpoints.status

    @property
    def last_checkpoint_at(self) -> str | None:
        """When the newest checkpoint was written (restored or written by this runner)."""
        return self._checkpoints.last_written_at

    def _checkpoint_due(self) -> bool:
        return self._checkpoints.due(self.positions, self.caught_up.is_set())

    async def write_checkpoint(self) -> None:
        """Write the store and the positions it reflects. Nothing is applied meanwhile: the
        runner's loop is the only writer of the store and waits for this."""
        await self._checkpoints.write(dict(self.positions), self.applied)

    def progress(self) -> dict[str, object]:
        """Offsets folded since start out of those to fold before ``caught_up``."""
        done = total = 0
        for tp, end in self._catch_up_target.items():
            begin = self._start_positions.get(tp, 0)
            total += max(0, end - begin)
            done += max(0, min(self.positions.get(tp, begin), end) - begin)
        return {"offsets_done": done, "offsets_total": total, "caught_up": self.caught_up.is_set(),
                "checkpoint": self.checkpoint_status, "last_checkpoint_at": self.last_checkpoint_at,
                "partitions": len(self._catch_up_target)}

    async def _apply_until_done(self, record: ConsumerRecord[bytes, bytes]) -> None:
        """Apply or dead-letter the record; if even the dead-letter topic fails, keep retrying
        the same record (see :meth:`_until_done`)."""
        await self._until_done(record, lambda: self._apply(record))

    async def _apply(self, record: ConsumerRecord[bytes, bytes]) -> None:
        try:
            self._projection.apply(decode_event(record.value))
            self.applied += 1
        except PoisonMessage as exc:
            await self._dead_letter(record, exc.reason)
        except Exception as exc:  # a record the projection rejects is poison as well
            await self._dead_letter(record, f"{type(exc).__name__}: {exc}")

    async def _dead_letter(self, record: ConsumerRecord[bytes, bytes], reason: str) -> None:
        assert self._producer is not None
        await dead_letter(self._producer, self._dlq_topic, record, reason,
                          consumer=self._consumer_name)
        self.dead_lettered += 1

    def _check_caught_up(self) -> None:
        if self.caught_up.is_set():
            return
        if all(self.positions.get(tp, 0) >= end for tp, end in self._catch_up_target.items()):
            self.caught_up.set()
