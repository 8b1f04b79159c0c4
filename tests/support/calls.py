"""Helpers integration tests share: publishing events to a mesh's topics, REST calls and
their outcomes, managed contexts, waiting, and the demo upstreams' call counters."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import httpx
from aiokafka import AIOKafkaProducer

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import topic_for_event
from tests.support.mesh import RunningMesh

T = TypeVar("T")


async def _publish(bootstrap: str, prefix: str, events: Sequence[ev.Event]) -> None:
    producer = AIOKafkaProducer(
        bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
        max_request_size=16 * 1024 * 1024,
    )
    await producer.start()
    try:
        for event in events:  # in order, each acknowledged before the next
            await producer.send_and_wait(
                topic_for_event(event).full_name(prefix), encode_event(event), key=event_key(event)
            )
    finally:
        await producer.stop()


def publish(mesh: RunningMesh, *events: ev.Event) -> None:
    """Publish to the mesh's own topics, as the control plane (clctl) would."""
    asyncio.run(_publish(mesh.layout.kafka, mesh.layout.topic_prefix, events))


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def refused(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert (response.status_code, response.json().get("code")) == (status, code), response.text
    data: dict[str, Any] = response.json()
    return data


def start_interaction(mesh: RunningMesh, account: str = "dev") -> dict[str, str]:
    """A managed context (``bkn_context``) issued by the trace core for ``account``."""
    data = ok(mesh.call(
        "bkn_start_interaction",
        {"question": f"test {uuid.uuid4().hex[:6]}", "agent_name": "test", "conversation_mode": "new"},
        account,
    ))
    return {"conversation_id": data["conversation_id"], "interaction_id": data["interaction_id"]}


def wait_until(predicate: Callable[[], T | None], timeout: float = 20.0, interval: float = 0.05) -> T:
    """Poll until ``predicate()`` is truthy; returns that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not reached within {timeout} s")
        time.sleep(interval)


def finance_stats(mesh: RunningMesh) -> dict[str, int]:
    stats: dict[str, int] = httpx.get(f"{mesh.url('finance_api')}/_stats", timeout=10).json()
    return stats
