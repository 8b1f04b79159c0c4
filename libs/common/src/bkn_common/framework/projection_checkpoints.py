"""A :class:`~bkn_common.framework.projection.ProjectionRunner`'s checkpoints: restore the store at
start and resume at the checkpoint's offsets, rewrite the checkpoint every interval once
caught up (and at a clean stop). An unusable checkpoint is logged and ignored (the runner
replays from offset zero); ``status`` and ``last_written_at`` say what happened for the
readiness and stats answers.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from aiokafka import TopicPartition

from bkn_common.framework.checkpoint import (
    Checkpoint,
    Checkpointable,
    CheckpointFile,
    CheckpointMissing,
    CheckpointRejected,
    check_offsets,
    encode,
)

log = logging.getLogger(__name__)


class ProjectionCheckpoints:
    """The checkpoint file of one runner and what it knows of it (``file`` None: off)."""

    def __init__(self, consumer_name: str, file: CheckpointFile | None, projection: object) -> None:
        self._consumer_name = consumer_name
        self.file = file
        self._projection = projection
        self.written: dict[TopicPartition, int] = {}
        """The positions of the newest checkpoint, restored or written."""
        self.applied_before = 0
        """Events the restored checkpoint had applied (its ``applied`` count)."""
        self.status: str = "off" if file is None else "not loaded"
        self.last_written_at: str | None = None  # the newest checkpoint, restored or written

    def store(self) -> Checkpointable | None:
        """The projection as a checkpointable store, or None when checkpoints are off or the
        projection cannot restore one."""
        projection: Any = self._projection
        if self.file is None or not hasattr(projection, "restore_checkpoint"):
            return None
        checkpointable: Checkpointable = projection
        return checkpointable

    def read(self) -> Checkpoint | Exception:
        """The checkpoint file decoded (a worker thread's job), or why it cannot be used."""
        store = self.store()
        assert store is not None and self.file is not None
        try:
            return self.file.read(store.checkpoint_version)
        except Exception as exc:  # reported by restore, in the runner's thread
            return exc

    def restore(self, topics: list[str], ends: dict[TopicPartition, int],
                read: Checkpoint | Exception | None) -> dict[TopicPartition, int]:
        """The checkpoint's offsets after restoring the store from the checkpoint ``read``;
        {} (offset zero) when there is none to use, with a log line saying why. Called only
        inside the runner start's pause of the collector (capability-index's 14 MB body took
        2.65 s to decode with it running, 0.42 s without), which freezes the restored store
        once started (ontology-query's full collection once caught up took seconds over it)."""
        store = self.store()
        if store is None or self.file is None or read is None:
            return {}
        try:
            if isinstance(read, Exception):
                raise read
            checkpoint = read
            check_offsets(checkpoint, topics, ends)
            store.restore_checkpoint(checkpoint.data)
        except CheckpointRejected as exc:
            self.status = f"ignored: {exc}"
            level = logging.INFO if isinstance(exc, CheckpointMissing) else logging.WARNING
            log.log(level, "%s: checkpoint %s ignored (%s); rebuilding from offset zero",
                    self._consumer_name, self.file.path, exc)
            return {}
        except Exception as exc:  # a store that cannot take its own data: start from zero
            self.status = f"ignored: restore failed: {type(exc).__name__}: {exc}"
            log.error("%s: checkpoint %s could not be restored (%s: %s); rebuilding from offset zero",
                      self._consumer_name, self.file.path, type(exc).__name__, exc)
            return {}
        self.applied_before = checkpoint.applied
        self.written = dict(checkpoint.offsets)
        self.status = f"loaded (written {checkpoint.written_at})"
        self.last_written_at = checkpoint.written_at
        log.info("%s: restored from checkpoint %s written %s (%d events); resuming at its offsets",
                 self._consumer_name, self.file.path, checkpoint.written_at, checkpoint.applied)
        return checkpoint.offsets

    def due(self, positions: dict[TopicPartition, int], caught_up: bool) -> bool:
        return (self.file is not None and caught_up
                and positions != self.written and self.file.due())

    def postpone(self) -> None:
        assert self.file is not None
        self.file.postpone()

    async def write(self, positions: dict[TopicPartition, int], applied: int) -> None:
        """Write the store and ``positions``, the positions it reflects (``applied``: events
        applied since the start). The caller applies nothing meanwhile."""
        store = self.store()
        if store is None or self.file is None:
            return
        raw = await asyncio.to_thread(
            encode, self._consumer_name, store.checkpoint_version, positions,
            self.applied_before + applied, store.checkpoint_data(),
        )
        await asyncio.to_thread(self.file.write, raw)
        self.written = positions
        self.last_written_at = datetime.now(UTC).isoformat()
        log.info("%s: checkpoint written to %s (%d bytes)", self._consumer_name,
                 self.file.path, len(raw))
