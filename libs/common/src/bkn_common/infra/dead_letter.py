"""Dead-lettering: a record a consumer can never handle goes to its dead-letter topic.

The record keeps its key and value; ``dlq.*`` headers say why and where it came from (the
reason, the consumer, the source topic, partition and offset), so it can be inspected and
replayed by hand. Used by the projection runner and by every consumer group of its own.
"""

from __future__ import annotations

import logging

from aiokafka import AIOKafkaProducer, ConsumerRecord

log = logging.getLogger(__name__)


def dead_letter_headers(
    record: ConsumerRecord[bytes, bytes], reason: str, consumer: str
) -> list[tuple[str, bytes]]:
    """The ``dlq.*`` headers of ``record`` dead-lettered by ``consumer`` for ``reason``."""
    return [
        ("dlq.reason", reason.encode()),
        ("dlq.consumer", consumer.encode()),
        ("dlq.topic", record.topic.encode()),
        ("dlq.partition", str(record.partition).encode()),
        ("dlq.offset", str(record.offset).encode()),
    ]


async def dead_letter(
    producer: AIOKafkaProducer, topic: str, record: ConsumerRecord[bytes, bytes], reason: str,
    *, consumer: str,
) -> None:
    """Send ``record`` to the dead-letter ``topic`` and wait for the broker's acknowledgement
    (raises when it does not come: the caller must not move past the record then)."""
    log.warning("%s: dead-lettering %s[%d]@%d: %s",
                consumer, record.topic, record.partition, record.offset, reason)
    await producer.send_and_wait(topic, value=record.value, key=record.key,
                                 headers=dead_letter_headers(record, reason, consumer))
