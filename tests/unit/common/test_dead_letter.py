"""The dead-letter helper copies a record unchanged and says why and where it came from."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka import ConsumerRecord

from bkn_common.infra.dead_letter import dead_letter


class RecordingProducer:
    def __init__(self, fail: bool = False) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.fail = fail

    async def send_and_wait(self, topic: str, **kw: Any) -> None:
        if self.fail:
            raise ConnectionError("broker down")
        self.sent.append((topic, kw))


def record() -> ConsumerRecord[bytes, bytes]:
    return ConsumerRecord(topic="bkn.lifecycle.v1", partition=2, offset=41, timestamp=0,
                          timestamp_type=0, key=b"k", value=b"{not json", checksum=None,
                          serialized_key_size=1, serialized_value_size=9, headers=())


async def test_the_record_goes_unchanged_with_its_origin_in_headers() -> None:
    producer = RecordingProducer()
    await dead_letter(producer, "bkn.dlq.x.v1", record(), "invalid JSON",  # type: ignore[arg-type]
                      consumer="x-actions")
    [(topic, sent)] = producer.sent
    assert topic == "bkn.dlq.x.v1"
    assert (sent["key"], sent["value"]) == (b"k", b"{not json")
    assert dict(sent["headers"]) == {
        "dlq.reason": b"invalid JSON", "dlq.consumer": b"x-actions",
        "dlq.topic": b"bkn.lifecycle.v1", "dlq.partition": b"2", "dlq.offset": b"41"}


async def test_a_failed_send_reaches_the_caller() -> None:
    with pytest.raises(ConnectionError):
        await dead_letter(RecordingProducer(fail=True), "t", record(), "r",  # type: ignore[arg-type]
                          consumer="c")
