"""Helpers of the logic-property and action tests: the demo bundle as the reference, events
to and from the mesh's own topics, calls through the gateway, upstream counters."""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import httpx
from aiokafka import AIOKafkaConsumer

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event
from bkn_common.contracts.topics import ACTIONS
from clctl.bundle.loader import Bundle, load_bundle
from clctl.bundle.models import InstancesDoc
from clctl.bundle.to_events import bundle_events
from tests.support.calls import (  # re-exported for the test modules
    finance_stats as finance_stats,
)
from tests.support.calls import (
    ok as ok,
)
from tests.support.calls import (
    publish as publish,
)
from tests.support.calls import (
    refused as refused,
)
from tests.support.calls import (
    start_interaction as start_interaction,
)
from tests.support.calls import (
    wait_until as wait_until,
)
from tests.support.mesh import RunningMesh

KN = "supply_chain"
ROOT = Path(__file__).resolve().parents[3]
T = TypeVar("T")


# -- the bundle as reference ----------------------------------------------------------------


@cache
def bundle() -> Bundle:
    return load_bundle(ROOT / "examples" / "supply_chain")


def objects(ot_id: str) -> list[dict[str, Any]]:
    doc: InstancesDoc = bundle().of(InstancesDoc)[0]
    return list(doc.objects[ot_id])


def relations(rt_id: str) -> list[tuple[str, str]]:
    doc: InstancesDoc = bundle().of(InstancesDoc)[0]
    return [(s, t) for s, t in doc.relations[rt_id]]


def schema_event(cls: type[T], entity_id: str) -> T:
    """The bundle's own schema event (object type, action type, ...) with ``entity_id``."""
    return next(
        e
        for e in bundle_events(bundle())
        if isinstance(e, cls) and getattr(e, "id", None) == entity_id
    )


# -- Kafka ----------------------------------------------------------------------------------


async def _read_actions(mesh: RunningMesh) -> list[ev.Event]:
    topic = ACTIONS.full_name(mesh.layout.topic_prefix)
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=mesh.layout.kafka,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    try:
        out: list[ev.Event] = []
        while True:
            batches = await consumer.getmany(timeout_ms=700)
            if not batches:
                return out
            out.extend(decode_event(r.value).event for rs in batches.values() for r in rs)
    finally:
        await consumer.stop()


def action_events(mesh: RunningMesh, execution_id: str) -> list[ev.Event]:
    """Every ACTIONS record of one execution, in log order."""
    return [
        e
        for e in asyncio.run(_read_actions(mesh))
        if getattr(e, "execution_id", None) == execution_id
    ]


# -- calls ----------------------------------------------------------------------------------


def logic_values(
    mesh: RunningMesh,
    ot_id: str,
    identities: list[dict[str, Any]],
    properties: list[str],
    dynamic_params: dict[str, Any] | None = None,
    account: str = "dev",
) -> httpx.Response:
    return mesh.call(
        "get_logic_properties_values",
        {
            "kn_id": KN,
            "ot_id": ot_id,
            "_instance_identity": identities,
            "properties": properties,
            "dynamic_params": dynamic_params or {},
        },
        account,
    )


def execute_action(
    mesh: RunningMesh,
    context: dict[str, str] | None,
    at_id: str,
    identities: list[dict[str, Any]],
    parameters: dict[str, Any] | None = None,
    account: str = "dev",
) -> httpx.Response:
    body: dict[str, Any] = {
        "kn_id": KN,
        "at_id": at_id,
        "_instance_identity": identities,
        "parameters": parameters or {},
    }
    if context is not None:
        body["bkn_context"] = context
    return mesh.call("execute_action", body, account)


def execution(mesh: RunningMesh, execution_id: str, account: str = "dev") -> dict[str, Any]:
    return ok(
        mesh.call("get_action_execution", {"kn_id": KN, "execution_id": execution_id}, account)
    )


def wait_finished(mesh: RunningMesh, execution_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """Poll get_action_execution until the execution is completed or failed."""

    def finished() -> dict[str, Any] | None:
        record = execution(mesh, execution_id)
        return record if record["status"] in ("completed", "failed") else None

    return wait_until(finished, timeout, interval=0.2)


def outcome(record: dict[str, Any]) -> tuple[str, int, int]:
    return record["status"], record["success_count"], record["failed_count"]


def po(po_id: str) -> dict[str, str]:
    return {"po_id": po_id}
