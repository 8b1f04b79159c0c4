"""capability-index materializing 100,000 binding and lifecycle events from offset zero.

    python bench/materialize_capabilities.py

Fresh topics under their own prefix on the local broker receive a small catalogue (10
toolboxes of 100 tools: bindings refer to real tools) and then 100,000 binding and lifecycle
events over 200 networks: replacements, mounts, unmounts, tool enablement, owner publish
state, proxy sync. A fresh in-process ``CapabilityIndex`` fed by a ``ProjectionRunner`` is
then timed from ``start()`` until ``caught_up``. The topics are deleted afterwards.

Measurements only, nothing asserted. Results: bench/results/materialize_capabilities.json.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import print_table, write_result

BOXES = 10
TOOLS_PER_BOX = 100
NETWORKS = 200
EVENTS = 100_000
BOOTSTRAP = "127.0.0.1:9092"


def catalog() -> list[Any]:
    from bkn_common.contracts import events as ev

    return [
        ev.ToolboxUpserted(
            id=f"mb{b}",
            name=f"materialize box {b}",
            kind="function",
            tools=tuple(
                ev.ToolSpec(
                    id=f"m{b}_{k:03d}",
                    name=f"tool {b} {k}",
                    description=f"synthetic tool {k} of box {b}",
                    function=ev.FunctionCode(source="def handler(a):\n    return a\n"),
                )
                for k in range(TOOLS_PER_BOX)
            ),
        )
        for b in range(BOXES)
    ]


def binding_and_lifecycle_events(n: int = EVENTS, seed: int = 5) -> list[Any]:
    """``n`` binding and lifecycle events (deterministic mix)."""
    from bkn_common.contracts import events as ev

    rng = random.Random(seed)
    refs = [
        ev.CapabilityRef(capability_type="function", capability_id=f"m{b}_{k:03d}", owner_id=f"mb{b}")
        for b in range(BOXES)
        for k in range(TOOLS_PER_BOX)
    ]
    networks = [f"mk{i:03d}" for i in range(NETWORKS)]
    out: list[Any] = [ev.BindingsReplaced(kn_id=kn, capabilities=tuple(rng.sample(refs, 50))) for kn in networks]
    out += [ev.OwnerStateChanged(owner_kind="toolbox", owner_id=f"mb{b}", state="published") for b in range(BOXES)]
    while len(out) < n:
        roll = rng.random()
        kn = rng.choice(networks)
        ref = rng.choice(refs)
        if roll < 0.40:
            out.append(ev.BindingMounted(kn_id=kn, capability=ref))
        elif roll < 0.50:
            out.append(ev.BindingUnmounted(kn_id=kn, capability=ref))
        elif roll < 0.90:
            out.append(
                ev.ToolStateChanged(owner_id=ref.owner_id or "", tool_id=ref.capability_id, enabled=rng.random() < 0.9)
            )
        elif roll < 0.95:
            out.append(
                ev.OwnerStateChanged(
                    owner_kind="toolbox",
                    owner_id=ref.owner_id or "",
                    state="published" if rng.random() < 0.9 else "offline",
                )
            )
        else:
            out.append(ev.ProxySyncChanged(kn_id=kn, proxy_id=f"proxy-{kn}", synced=rng.random() < 0.9))
    return out[:n]


async def _run() -> dict[str, Any]:
    from aiokafka.admin import AIOKafkaAdminClient

    from bkn_common.contracts.topics import ALL_TOPICS, projection_topics
    from bkn_common.framework.projection import ProjectionRunner
    from bkn_common.infra.kafka import EventPublisher, ensure_topics, make_broker
    from bkn_common.infra.settings import ServiceSettings
    from capability_index.service_layer.projection import CapabilityIndex

    prefix = f"benchmat{uuid.uuid4().hex[:8]}."
    await ensure_topics(BOOTSTRAP, prefix)
    broker = make_broker(ServiceSettings(kafka_bootstrap_servers=BOOTSTRAP, service_name="bench"))
    await broker.connect()
    try:
        publisher = EventPublisher(broker, prefix)
        base = catalog()
        events = binding_and_lifecycle_events()
        began = time.perf_counter()
        await publisher.publish_many(base)
        for start in range(0, len(events), 5_000):
            await publisher.publish_many(events[start : start + 5_000])
        publish_s = time.perf_counter() - began
    finally:
        await broker.stop()

    index = CapabilityIndex()
    runner = ProjectionRunner(
        bootstrap_servers=BOOTSTRAP,
        consumer_name="capability-index",
        topics=projection_topics("capability-index"),
        projection=index,
        topic_prefix=prefix,
    )
    began = time.perf_counter()
    await runner.start()
    try:
        await asyncio.wait_for(runner.caught_up.wait(), 900)
        seconds = time.perf_counter() - began
        applied, dead = runner.applied, runner.dead_lettered
    finally:
        await runner.stop()
        admin = AIOKafkaAdminClient(bootstrap_servers=BOOTSTRAP)
        await admin.start()
        try:
            await admin.delete_topics([t.full_name(prefix) for t in ALL_TOPICS])
        except Exception:  # best effort: the prefix is unique anyway
            pass
        finally:
            await admin.close()

    total = len(base) + len(events)
    return {
        "events": {
            "total": total,
            "catalog": len(base),
            "binding_and_lifecycle": len(events),
            "by_type": dict(Counter(e.type for e in events)),
        },
        "publish_s": publish_s,
        "materialize_s": seconds,
        "events_per_s": total / seconds,
        "binding_and_lifecycle_per_s": len(events) / seconds,
        "applied": applied,
        "dead_lettered": dead,
        "state": {
            "networks": len(index.catalog.bindings),
            "mounted": sum(len(v) for v in index.catalog.bindings.values()),
            "indexed": len(index.lexical),
            "catalog_version": index.catalog.version,
        },
    }


def main() -> dict[str, Any]:
    result = asyncio.run(_run())
    print_table(
        "capability-index: materialize from offset zero (fresh CapabilityIndex + ProjectionRunner)",
        [
            {
                "events": result["events"]["total"],
                "of_which_binding_lifecycle": result["events"]["binding_and_lifecycle"],
                "seconds": result["materialize_s"],
                "events_per_s": result["events_per_s"],
                "applied": result["applied"],
                "dead_lettered": result["dead_lettered"],
            }
        ],
    )
    print(f"   published in {result['publish_s']:.1f} s; final state: {result['state']}")
    payload = {"config": {"networks": NETWORKS, "tools": BOXES * TOOLS_PER_BOX}, **result}
    path = write_result("materialize_capabilities", payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
