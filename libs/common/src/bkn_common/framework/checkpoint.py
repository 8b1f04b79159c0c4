"""Checkpoints of a derived store: its data plus the Kafka offsets it reflects, in one file.

A :class:`ProjectionRunner` given a :class:`CheckpointFile` loads it at start (resuming from
its offsets instead of offset zero), writes it every ``interval`` seconds once caught up and
at a clean stop. The store only says how to serialise itself (:class:`Checkpointable`).

File ``<dir>/<consumer>.ckpt``::

    bkn-checkpoint <FORMAT>\\n
    <sha256 hex of every byte after this line>\\n
    <header: one line of JSON: consumer, store_version, offsets, applied, written_at, body_bytes>\\n
    <body: the store's data as JSON (orjson), body_bytes long>

Written to a temporary file, fsynced and renamed over the old one, so a crash mid-write
leaves the previous checkpoint. A checkpoint that is missing, unreadable, corrupt (checksum),
of another format or store version, of another consumer or topic set, or whose offsets lie
beyond the topics' current ends (topics recreated) is ignored with a log line saying why, and
the store rebuilds from offset zero. The body is plain data (no pickle): loading a file can
never run code.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import orjson
from aiokafka import TopicPartition

log = logging.getLogger(__name__)

FORMAT = 1
MAGIC = b"bkn-checkpoint"


class Checkpointable(Protocol):
    """A store that can be written to and restored from a checkpoint.

    ``checkpoint_version``: bump it whenever ``checkpoint_data``'s shape changes; a checkpoint of
    another version is ignored. ``checkpoint_data()`` returns JSON-serialisable data (orjson:
    dicts, lists, tuples, str, numbers, bool, None, dataclasses); it may reference live
    structures, as nothing is applied while it is written. ``restore_checkpoint(data)`` fills a
    fresh store from it, all or nothing: on an exception the store must still be empty.
    Loading a checkpoint and then folding the rest of the log must give the same store (same
    ``snapshot()``) as folding the whole log.
    """

    checkpoint_version: int

    def checkpoint_data(self) -> Any: ...

    def restore_checkpoint(self, data: Any) -> None: ...


class CheckpointRejected(Exception):
    """Why a checkpoint file is not used (the message is logged)."""


class CheckpointMissing(CheckpointRejected):
    """There is no checkpoint file (a first start, or checkpoints newly switched on)."""


@dataclass(frozen=True)
class Checkpoint:
    """A decoded checkpoint: header fields and the store's data."""

    consumer: str
    store_version: int
    offsets: dict[TopicPartition, int]
    applied: int
    written_at: str
    data: Any


def encode(consumer: str, store_version: int, offsets: Mapping[TopicPartition, int],
           applied: int, data: Any) -> bytes:
    """The file's bytes (see the module docstring)."""
    body = orjson.dumps(data)
    header = orjson.dumps({
        "consumer": consumer,
        "store_version": store_version,
        "offsets": sorted([tp.topic, tp.partition, offset] for tp, offset in offsets.items()),
        "applied": applied,
        "written_at": datetime.now(UTC).isoformat(),
        "body_bytes": len(body),
    })
    payload = header + b"\n" + body
    digest = hashlib.sha256(payload).hexdigest().encode()
    return MAGIC + b" " + str(FORMAT).encode() + b"\n" + digest + b"\n" + payload


def decode(raw: bytes, consumer: str, store_version: int) -> Checkpoint:
    """Parse and check a file's bytes; raises :class:`CheckpointRejected` saying why."""
    first, sep, rest = raw.partition(b"\n")
    parts = first.split(b" ")
    if not sep or len(parts) != 2 or parts[0] != MAGIC:
        raise CheckpointRejected("not a checkpoint file")
    try:
        found_format = int(parts[1])
    except ValueError as exc:
        raise CheckpointRejected("not a checkpoint file") from exc
    if found_format != FORMAT:
        age = "older" if found_format < FORMAT else "newer"
        raise CheckpointRejected(f"file format {found_format} is {age} than {FORMAT}")
    digest, sep, payload = rest.partition(b"\n")
    if not sep or hashlib.sha256(payload).hexdigest().encode() != digest:
        raise CheckpointRejected("corrupt: checksum mismatch")
    header_bytes, _, body = payload.partition(b"\n")
    try:
        header = orjson.loads(header_bytes)
        if header["consumer"] != consumer:
            raise CheckpointRejected(f"written by {header['consumer']!r}, not {consumer!r}")
        if header["store_version"] != store_version:
            age = "older" if header["store_version"] < store_version else "newer"
            raise CheckpointRejected(
                f"store version {header['store_version']} is {age} than {store_version}")
        if header["body_bytes"] != len(body):
            raise CheckpointRejected("corrupt: body length mismatch")
        offsets = {TopicPartition(t, int(p)): int(o) for t, p, o in header["offsets"]}
        return Checkpoint(consumer, store_version, offsets, int(header["applied"]),
                          str(header["written_at"]), orjson.loads(body))
    except CheckpointRejected:
        raise
    except (KeyError, TypeError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
        raise CheckpointRejected(f"corrupt: {type(exc).__name__}: {exc}") from exc


def check_offsets(checkpoint: Checkpoint, topics: list[str],
                  ends: Mapping[TopicPartition, int]) -> None:
    """The checkpoint must cover exactly these topics, on partitions that exist, at offsets
    not beyond their ends (a partition the checkpoint does not know starts at zero)."""
    covered = {tp.topic for tp in checkpoint.offsets}
    if covered != set(topics):
        raise CheckpointRejected(
            f"covers topics {sorted(covered)}, the store folds {sorted(topics)}")
    for tp, offset in checkpoint.offsets.items():
        end = ends.get(tp)
        if end is None:
            raise CheckpointRejected(f"partition {tp.topic}[{tp.partition}] no longer exists")
        if offset > end:
            raise CheckpointRejected(
                f"offset {offset} of {tp.topic}[{tp.partition}] is beyond its end {end} "
                "(topic recreated?)")


class CheckpointFile:
    """One consumer's checkpoint file, and how often to rewrite it."""

    def __init__(self, directory: str | Path, consumer: str, interval_seconds: float) -> None:
        self.directory = Path(directory)
        self.consumer = consumer
        self.interval_seconds = interval_seconds
        self.path = self.directory / f"{consumer}.ckpt"
        self.last_written = time.monotonic()

    def read(self, store_version: int) -> Checkpoint:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError as exc:
            raise CheckpointMissing(f"no checkpoint at {self.path}") from exc
        except OSError as exc:
            raise CheckpointRejected(f"unreadable: {exc}") from exc
        return decode(raw, self.consumer, store_version)

    def write(self, raw: bytes) -> None:
        """Atomically replace the file with ``raw`` (temporary file, fsync, rename)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.directory)
        tmp = Path(name)
        try:
            with open(fd, "wb") as out:
                out.write(raw)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        with contextlib.suppress(OSError):
            fd = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        self.last_written = time.monotonic()

    def due(self) -> bool:
        return time.monotonic() - self.last_written >= self.interval_seconds

    def postpone(self) -> None:
        """After a failed write: try again one interval later."""
        self.last_written = time.monotonic()
