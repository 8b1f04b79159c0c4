"""The checkpoint file format: round trip, and every reason a file is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiokafka import TopicPartition

from bkn_common.framework import checkpoint as ck

OFFSETS = {TopicPartition("p.bkn.catalog.v1", 0): 12, TopicPartition("p.bkn.bindings.v1", 2): 7}
DATA = {"toolboxes": [{"id": "b1", "tools": ["t1", "t2"]}], "n": 3, "text": "汇率换算", "none": None}


def encoded(**overrides: object) -> bytes:
    args: dict[str, object] = {"consumer": "capability-index", "store_version": 2,
                               "offsets": OFFSETS, "applied": 19, "data": DATA}
    args.update(overrides)
    return ck.encode(**args)  # type: ignore[arg-type]


def test_round_trip_keeps_data_offsets_and_counts() -> None:
    found = ck.decode(encoded(), "capability-index", 2)
    assert found.data == DATA
    assert found.offsets == OFFSETS
    assert found.applied == 19 and found.consumer == "capability-index" and found.store_version == 2


def test_the_first_line_names_the_format() -> None:
    assert encoded().split(b"\n", 1)[0] == b"bkn-checkpoint %d" % ck.FORMAT


@pytest.mark.parametrize("position", [40, 100, -2])
def test_a_flipped_byte_anywhere_after_the_checksum_is_refused(position: int) -> None:
    raw = bytearray(encoded())
    raw[position] ^= 0x01
    with pytest.raises(ck.CheckpointRejected, match=r"corrupt|not a checkpoint"):
        ck.decode(bytes(raw), "capability-index", 2)


def test_a_truncated_file_is_refused() -> None:
    with pytest.raises(ck.CheckpointRejected, match="corrupt"):
        ck.decode(encoded()[:-5], "capability-index", 2)


def test_an_older_file_format_is_refused_as_older() -> None:
    raw = encoded().replace(b"bkn-checkpoint %d" % ck.FORMAT, b"bkn-checkpoint 0", 1)
    with pytest.raises(ck.CheckpointRejected, match="format 0 is older"):
        ck.decode(raw, "capability-index", 2)


def test_an_older_store_version_is_refused_as_older() -> None:
    with pytest.raises(ck.CheckpointRejected, match="store version 1 is older than 2"):
        ck.decode(encoded(store_version=1), "capability-index", 2)


def test_another_consumers_checkpoint_is_refused() -> None:
    with pytest.raises(ck.CheckpointRejected, match="tool-executor"):
        ck.decode(encoded(consumer="tool-executor"), "capability-index", 2)


def test_something_else_is_not_a_checkpoint() -> None:
    with pytest.raises(ck.CheckpointRejected, match="not a checkpoint"):
        ck.decode(b'{"json": true}\n', "capability-index", 2)


def test_offsets_must_cover_the_same_topics_and_not_pass_the_ends() -> None:
    found = ck.decode(encoded(), "capability-index", 2)
    topics = ["p.bkn.catalog.v1", "p.bkn.bindings.v1"]
    ends = {TopicPartition("p.bkn.catalog.v1", 0): 12, TopicPartition("p.bkn.bindings.v1", 2): 9,
            TopicPartition("p.bkn.bindings.v1", 0): 4}
    ck.check_offsets(found, topics, ends)  # a partition it does not know starts at zero
    with pytest.raises(ck.CheckpointRejected, match="beyond its end"):
        ck.check_offsets(found, topics, {**ends, TopicPartition("p.bkn.catalog.v1", 0): 3})
    with pytest.raises(ck.CheckpointRejected, match="covers topics"):
        ck.check_offsets(found, [*topics, "p.bkn.lifecycle.v1"], ends)
    with pytest.raises(ck.CheckpointRejected, match="no longer exists"):
        ck.check_offsets(found, topics, {TopicPartition("p.bkn.catalog.v1", 0): 12})


def test_the_file_is_replaced_whole_and_read_back(tmp_path: Path) -> None:
    file = ck.CheckpointFile(tmp_path / "ckpt", "capability-index", 60)
    with pytest.raises(ck.CheckpointRejected, match="no checkpoint at"):
        file.read(2)
    file.write(encoded(applied=1))
    file.write(encoded(applied=2))
    assert file.read(2).applied == 2
    assert [p.name for p in (tmp_path / "ckpt").iterdir()] == ["capability-index.ckpt"]


def test_bodies_are_plain_data_never_objects() -> None:
    class Opaque:
        pass

    with pytest.raises(TypeError):
        encoded(data={"x": Opaque()})
