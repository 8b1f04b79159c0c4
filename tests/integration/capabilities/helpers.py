"""Helpers shared by the capability tests: publishing events, calling tools, counting upstreams.

Everything talks to a real mesh (``RunningMesh``): events go to the mesh's own topics on the
real broker, calls go through the gateway's REST surface, upstream call counts come from the
demo upstreams' ``/_stats``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import httpx
from aiokafka import AIOKafkaConsumer

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event
from bkn_common.contracts.topics import RECEIPTS
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

Ref = tuple[str, str | None, str]
T = TypeVar("T")

FX = ("box_finance", "tool_fx_convert")
FX_ARGS: dict[str, Any] = {"amount": 100, "from": "USD", "to": "CNY"}


# -- events -------------------------------------------------------------------------------


def tool_ref(owner: str, tool: str, capability_type: str = "function") -> ev.CapabilityRef:
    return ev.CapabilityRef(capability_type=capability_type, capability_id=tool, owner_id=owner)  # type: ignore[arg-type]


def skill_ref(skill_id: str) -> ev.CapabilityRef:
    return ev.CapabilityRef(capability_type="skill", capability_id=skill_id)


def network(
    kn_id: str,
    *,
    grants: dict[str, tuple[str, ...]] | None = None,
    refs: Iterable[ev.CapabilityRef] = (),
    synced: bool = True,
) -> list[ev.Event]:
    """Events creating a private network: grants (dev: view_detail+execute), proxy, bindings."""
    grants = grants if grants is not None else {"dev": ("view_detail", "execute")}
    return [
        ev.NetworkUpserted(
            kn_id=kn_id,
            name=kn_id,
            grants=tuple(ev.NetworkGrant(account=a, permissions=p) for a, p in grants.items()),  # type: ignore[arg-type]
        ),
        ev.ProxySyncChanged(kn_id=kn_id, proxy_id=f"proxy-{kn_id}", synced=synced),
        ev.BindingsReplaced(kn_id=kn_id, capabilities=tuple(refs)),
    ]


def published(
    owner: str, tool_ids: Iterable[str], kind: str = "toolbox", enabled: bool = True
) -> list[ev.Event]:
    """Lifecycle events: the owner published and each tool enabled (or disabled)."""
    return [
        ev.OwnerStateChanged(owner_kind=kind, owner_id=owner, state="published"),  # type: ignore[arg-type]
        *(ev.ToolStateChanged(owner_id=owner, tool_id=t, enabled=enabled) for t in tool_ids),
    ]


def function_tool(
    tool_id: str, source: str, *, name: str | None = None, description: str = "", **limits: Any
) -> ev.ToolSpec:
    return ev.ToolSpec(
        id=tool_id,
        name=name or tool_id,
        description=description or f"test function {tool_id}",
        function=ev.FunctionCode(source=source, **limits),
        input_schema={"type": "object", "properties": {}},
    )


# -- waiting ------------------------------------------------------------------------------


# -- calls --------------------------------------------------------------------------------


def search(
    mesh: RunningMesh,
    kn_id: str | None = "supply_chain",
    account: str = "dev",
    headers: dict[str, str] | None = None,
    **body: Any,
) -> httpx.Response:
    payload = ({"kn_id": kn_id} if kn_id is not None else {}) | body
    return mesh.call("search_capabilities", payload, account, **(headers or {}))


def refs(response: httpx.Response) -> list[Ref]:
    return [
        (c["capability_type"], c.get("owner_id"), c["capability_id"])
        for c in ok(response)["capabilities"]
    ]


def search_refs(
    mesh: RunningMesh, kn_id: str = "supply_chain", account: str = "dev", **body: Any
) -> list[Ref]:
    return refs(search(mesh, kn_id, account, **body))


def execute(
    mesh: RunningMesh,
    context: dict[str, str] | None,
    toolbox_id: str,
    tool_id: str,
    arguments: dict[str, Any],
    *,
    kn_id: str = "supply_chain",
    account: str = "dev",
    **headers: str,
) -> httpx.Response:
    body: dict[str, Any] = {
        "kn_id": kn_id,
        "toolbox_id": toolbox_id,
        "tool_id": tool_id,
        "arguments": arguments,
    }
    if context is not None:
        body["bkn_context"] = context
    return mesh.call("execute_tool", body, account, **headers)


def invocation_id() -> str:
    return f"inv-{uuid.uuid4().hex}"


# -- upstream counters --------------------------------------------------------------------


def logistics_stats(mesh: RunningMesh) -> dict[str, int]:
    base = mesh.url("logistics_mcp").removesuffix("/mcp")
    stats: dict[str, int] = httpx.get(f"{base}/_stats", timeout=10).json()
    return stats


def upstream_totals(mesh: RunningMesh) -> int:
    return sum(finance_stats(mesh).values()) + sum(logistics_stats(mesh).values())


# -- receipts -----------------------------------------------------------------------------


async def _read(bootstrap: str, topic: str) -> list[ev.EventRecord]:
    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    try:
        out: list[ev.EventRecord] = []
        while True:
            batches = await consumer.getmany(timeout_ms=500)
            if not batches:
                return out
            out.extend(decode_event(r.value) for rs in batches.values() for r in rs)
    finally:
        await consumer.stop()


def receipts(mesh: RunningMesh) -> list[ev.ExecutionReceiptRecorded]:
    """Every execution receipt on the mesh's receipts topic so far."""
    records = asyncio.run(_read(mesh.layout.kafka, RECEIPTS.full_name(mesh.layout.topic_prefix)))
    return [r.event for r in records if isinstance(r.event, ev.ExecutionReceiptRecorded)]


def wait_receipt(
    mesh: RunningMesh,
    predicate: Callable[[ev.ExecutionReceiptRecorded], bool],
    timeout: float = 20.0,
) -> ev.ExecutionReceiptRecorded:
    def find() -> ev.ExecutionReceiptRecorded | None:
        return next((r for r in receipts(mesh) if predicate(r)), None)

    return wait_until(find, timeout, interval=0.2)
