"""A dead letter as the operator API shows it: why, where from, the first bytes as text."""

from __future__ import annotations

from aiokafka import ConsumerRecord

from bkn_common.infra.dead_letter_tail import describe


def _record(value: bytes, headers: list[tuple[str, bytes]]) -> ConsumerRecord[bytes, bytes]:
    return ConsumerRecord(topic="bkn.dlq.x.v1", partition=0, offset=3, timestamp=1000, timestamp_type=0,
                          key=b"k", value=value, checksum=None, serialized_key_size=1,
                          serialized_value_size=len(value), headers=headers)


def test_headers_and_first_bytes() -> None:
    found = describe(_record(b"\xff" + b"a" * 300, [
        ("dlq.reason", b"ValueError: bad"), ("dlq.topic", b"bkn.trace.v1"), ("dlq.partition", b"2"),
        ("dlq.offset", b"41"), ("other", b"ignored")]), first_bytes=8)
    assert (found["reason"], found["source_topic"], found["source_partition"], found["source_offset"]) == (
        "ValueError: bad", "bkn.trace.v1", 2, 41)
    assert found["first_bytes"] == "\ufffdaaaaaaa" and found["size"] == 301 and found["offset"] == 3


def test_a_record_without_headers() -> None:
    found = describe(_record(b"", []))
    assert found["reason"] is None and found["source_offset"] is None and found["first_bytes"] == ""
