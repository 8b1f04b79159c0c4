"""ontology-query at scale: materializing 200,000 objects and 1,000,000 relations from Kafka,
then instance and subgraph queries through the gateway.

A private mesh (no demo bundles) gets a generated network ``bench_kn`` on fresh topics:

    person 50k ─rel_person_order─▶ order 100k ─rel_order_product ×6─▶ product 40k
    person ─rel_person_knows ×2─▶ person         product ─rel_product_store ×5─▶ store 10k

Steps, each timed: generate and publish the events (ontology-query stopped meanwhile, so the
broker and the encoder have the machine); restart ontology-query and wait for ``/readyz``
(its projection replays every topic from offset zero); then latencies through the gateway's
REST surface as the ``dev`` account. Measured, never asserted.

The bulk publish uses a plain aiokafka producer (same encoding, record keys and topics as
``EventPublisher``): ``EventPublisher.publish_many`` goes through FastStream's per-message
middleware and runs at a few thousand events per second here, which would take most of the
time budget on its own. Its throughput is measured on a sample and reported next to the bulk rate.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import chain, islice
from pathlib import Path
from typing import Any

import httpx
from aiokafka import AIOKafkaProducer

from bench.harness import bench_mesh, latency_summary, print_table, write_result
from bkn_common.contracts import events as ev
from bkn_common.contracts.events import encode_event
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import topic_for_event
from bkn_common.infra.kafka import EventPublisher, make_broker
from bkn_common.infra.settings import ServiceSettings

KN = "bench_kn"
PERSONS, ORDERS, PRODUCTS, STORES = 50_000, 100_000, 40_000, 10_000
PER_ORDER, PER_PRODUCT, KNOWS = 6, 5, 2
CITIES = [f"city_{i:02d}" for i in range(20)]
STATUSES = ["new", "paid", "shipped", "cancelled"]
CATEGORIES = [f"cat_{i:02d}" for i in range(30)]
CHUNK = 50_000
SAMPLE = 5_000
EQ = ["==", "!=", "in", "not_in", "exist", "not_exist"]
NUM = ["==", "!=", ">", "<", ">=", "<=", "range", "out_range", "in", "exist", "not_exist"]


def _prop(name: str, ptype: str = "string", ops: list[str] = EQ,
          indexed: bool = False) -> ev.DataProperty:
    return ev.DataProperty(name=name, type=ptype, condition_operations=tuple(ops),  # type: ignore[arg-type]
                           indexed=indexed)


def schema_events() -> list[ev.Event]:
    def ot(ot_id: str, key: str, props: list[ev.DataProperty]) -> ev.ObjectTypeUpserted:
        return ev.ObjectTypeUpserted(kn_id=KN, id=ot_id, name=ot_id, primary_keys=(key,),
                                     display_key=key, properties=tuple(props))

    def rt(rt_id: str, source: str, target: str) -> ev.RelationTypeUpserted:
        return ev.RelationTypeUpserted(kn_id=KN, id=rt_id, name=rt_id,
                                       source_object_type_id=source, target_object_type_id=target)

    return [
        ev.NetworkUpserted(kn_id=KN, name="bench network", grants=(
            ev.NetworkGrant(account="dev", permissions=("view_detail", "execute")),)),
        ot("person", "pid", [_prop("pid", indexed=True), _prop("name"),
                             _prop("city", indexed=True), _prop("age", "integer", NUM)]),
        ot("order", "oid", [_prop("oid", indexed=True), _prop("amount", "number", NUM),
                            _prop("status", indexed=True), _prop("created_at", "datetime", NUM)]),
        ot("product", "sku", [_prop("sku", indexed=True), _prop("category", indexed=True),
                              _prop("price", "number", NUM)]),
        ot("store", "sid", [_prop("sid", indexed=True), _prop("city", indexed=True)]),
        rt("rel_person_order", "person", "order"),
        rt("rel_order_product", "order", "product"),
        rt("rel_product_store", "product", "store"),
        rt("rel_person_knows", "person", "person"),
    ]  # fmt: skip


def instance_events(rng: random.Random) -> Iterator[ev.Event]:
    """200,000 objects, then 1,000,000 relation instances."""
    start = datetime(2024, 1, 1, tzinfo=UTC)

    def obj(ot_id: str, obj_id: str, props: dict[str, Any]) -> ev.ObjectInstanceUpserted:
        return ev.ObjectInstanceUpserted(kn_id=KN, ot_id=ot_id, id=obj_id, properties=props)

    def rel(rt_id: str, source: str, target: str) -> ev.RelationInstanceUpserted:
        return ev.RelationInstanceUpserted(kn_id=KN, rt_id=rt_id, source_id=source,
                                           target_id=target)

    for i in range(PERSONS):
        pid = f"P-{i:06d}"
        yield obj("person", pid, {"pid": pid, "name": f"person {i}", "city": rng.choice(CITIES),
                                  "age": rng.randint(18, 80)})
    for i in range(ORDERS):
        oid = f"O-{i:06d}"
        created = (start + timedelta(minutes=rng.randint(0, 500_000))).isoformat()
        yield obj("order", oid, {"oid": oid, "amount": round(rng.uniform(1, 10_000), 2),
                                 "status": rng.choice(STATUSES), "created_at": created})
    for i in range(PRODUCTS):
        sku = f"K-{i:06d}"
        yield obj("product", sku, {"sku": sku, "category": rng.choice(CATEGORIES),
                                   "price": round(rng.uniform(1, 500), 2)})
    for i in range(STORES):
        sid = f"W-{i:05d}"
        yield obj("store", sid, {"sid": sid, "city": rng.choice(CITIES)})
    for i in range(ORDERS):
        yield rel("rel_person_order", f"P-{rng.randrange(PERSONS):06d}", f"O-{i:06d}")
        for sku in rng.sample(range(PRODUCTS), PER_ORDER):
            yield rel("rel_order_product", f"O-{i:06d}", f"K-{sku:06d}")
    for i in range(PRODUCTS):
        for sid in rng.sample(range(STORES), PER_PRODUCT):
            yield rel("rel_product_store", f"K-{i:06d}", f"W-{sid:05d}")
    for i in range(PERSONS):
        for other in rng.sample(range(PERSONS), KNOWS):
            if other != i:
                yield rel("rel_person_knows", f"P-{i:06d}", f"P-{other:06d}")


async def publish_bulk(kafka: str, prefix: str, events: Iterator[ev.Event]) -> int:
    producer = AIOKafkaProducer(bootstrap_servers=kafka, acks="all", enable_idempotence=True,
                                linger_ms=20, max_batch_size=1024 * 1024,
                                max_request_size=16 * 1024 * 1024)
    await producer.start()
    count = 0
    try:
        pending: list[asyncio.Future[Any]] = []
        for event in events:
            topic = topic_for_event(event).full_name(prefix)
            pending.append(await producer.send(topic, encode_event(event), key=event_key(event)))
            count += 1
            if len(pending) >= CHUNK:
                await asyncio.gather(*pending)
                pending = []
        await asyncio.gather(*pending)
    finally:
        await producer.stop()
    return count


async def publish_with_event_publisher(kafka: str, prefix: str, events: list[ev.Event]) -> None:
    broker = make_broker(ServiceSettings(kafka_bootstrap_servers=kafka, topic_prefix=prefix))
    await broker.start()
    try:
        publisher = EventPublisher(broker, prefix)
        for i in range(0, len(events), 1000):
            await publisher.publish_many(events[i : i + 1000])
    finally:
        await broker.stop()


def _rss_mb(run_dir: Path, name: str) -> float | None:
    try:
        pid = int((run_dir / "pids" / f"{name}.pid").read_text())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def _timed_calls(client: httpx.Client, tool: str, bodies: list[dict[str, Any]]) -> dict[str, Any]:
    client.post(f"/api/agent-retrieval/v1/kn/{tool}", json=bodies[0]).raise_for_status()  # warm
    samples, sizes = [], []
    for body in bodies:
        started = time.perf_counter()
        response = client.post(f"/api/agent-retrieval/v1/kn/{tool}", json=body)
        samples.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        sizes.append(response.json())
    return {"latency": latency_summary(samples), "answers": sizes}


def _city(i: int) -> dict[str, Any]:
    return {"field": "city", "operation": "==", "value": CITIES[i % len(CITIES)],
            "value_from": "const"}


def main() -> dict[str, Any]:
    import devmesh

    rows: list[dict[str, Any]] = []
    result: dict[str, Any] = {"objects": PERSONS + ORDERS + PRODUCTS + STORES}
    with bench_mesh("ontology", bundles=()) as (layout, key, _keys):
        ontology = next(p for p in layout.services() if p.name == "ontology-query")
        devmesh.stop_processes(layout, ["ontology-query"])

        sample = list(islice(instance_events(random.Random(99)), SAMPLE))
        sample = [e.model_copy(update={"kn_id": "bench_sample"}) for e in sample]
        started = time.perf_counter()
        asyncio.run(publish_with_event_publisher(layout.kafka, layout.topic_prefix, sample))
        publisher_rate = SAMPLE / (time.perf_counter() - started)

        started = time.perf_counter()
        count = asyncio.run(publish_bulk(layout.kafka, layout.topic_prefix, chain(
            schema_events(), instance_events(random.Random(7)))))
        publish_s = time.perf_counter() - started
        result["events"] = count
        rows.append({"step": "publish (bulk producer)", "events": count, "seconds": publish_s,
                     "events_per_s": count / publish_s})
        rows.append({"step": "publish (EventPublisher sample)", "events": SAMPLE,
                     "seconds": SAMPLE / publisher_rate, "events_per_s": publisher_rate})

        started = time.perf_counter()
        devmesh.start_process(layout, ontology)
        devmesh.wait_healthy(layout, [ontology], timeout=1200)
        materialize_s = time.perf_counter() - started
        total = count + SAMPLE
        rows.append({"step": "ontology-query replay to /readyz", "events": total,
                     "seconds": materialize_s, "events_per_s": total / materialize_s})
        result["ontology_query_rss_mb"] = _rss_mb(layout.run_dir, "ontology-query")
        print_table("materializing (200,000 objects, ~1,000,000 relations)", rows)
        print(f"ontology-query RSS after the replay: {result['ontology_query_rss_mb']} MiB")
        result["materialize"] = rows

        with httpx.Client(base_url=layout.gateway_url, timeout=120,
                          headers={"Authorization": f"Bearer {key}"}) as client:
            result["queries"] = _queries(client)
    write_result("ontology_queries", result)
    return result


def _queries(client: httpx.Client) -> list[dict[str, Any]]:
    rng = random.Random(3)
    runs = 30
    persons = [{"kn_id": KN, "ot_id": "person", "condition": _city(i), "limit": 10}
               for i in range(runs)]
    one_order = [{"kn_id": KN, "ot_id": "order", "condition": {
        "field": "oid", "operation": "==", "value": f"O-{rng.randrange(ORDERS):06d}",
        "value_from": "const"}} for _ in range(runs)]  # fmt: skip
    explore = [{"kn_id": KN, "source_object_type_id": "person", "direction": "bidirectional",
                "path_length": 2, "limit": 10, "condition": _city(i)} for i in range(runs)]
    template = [{"kn_id": KN, "relation_type_paths": [{
        "object_types": [{"id": "person", "condition": _city(i), "limit": 10},
                         {"id": "order", "limit": 100}, {"id": "product", "limit": 100},
                         {"id": "store", "limit": 100}],
        "relation_types": [{"relation_type_id": "rel_person_order"},
                           {"relation_type_id": "rel_order_product"},
                           {"relation_type_id": "rel_product_store"}]}]} for i in range(runs)]
    cases = [
        ("query_object_instance city == (indexed, 10)", "query_object_instance", persons,
         lambda a: len(a["objects"])),
        ("query_object_instance oid == (indexed, 1)", "query_object_instance", one_order,
         lambda a: len(a["objects"])),
        ("explore_subgraph 10 starts, 2 hops, bidirectional", "explore_subgraph", explore,
         lambda a: len(a["relation_paths"])),
        ("query_instance_subgraph 3 hops", "query_instance_subgraph", template,
         lambda a: len(a["entries"][0]["relation_paths"])),
    ]  # fmt: skip
    rows = []
    for label, tool, bodies, size in cases:
        measured = _timed_calls(client, tool, bodies)
        latency = measured["latency"]
        rows.append({
            "query": label, "n": int(latency["n"]), "p50_ms": latency["p50_ms"],
            "p90_ms": latency["p90_ms"],
            "median_result_size": statistics.median(size(a) for a in measured["answers"]),
        })  # fmt: skip
    print_table("queries through the gateway (dev, REST, sequential)", rows)
    return rows


if __name__ == "__main__":
    main()
