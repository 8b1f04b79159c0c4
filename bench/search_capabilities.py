"""search_capabilities through the gateway on a network with 10,000 mounted capabilities.

    python bench/search_capabilities.py

A private mesh (``bench_mesh("search")``) gets a bundle-free catalogue
published straight to its topics: 10 function toolboxes of 1,000 tools, their publish state
and tool enablement, and a network ``bench_kn`` (grants for ``dev``) whose bindings are all
10,000 tools. Then:

* ranked search (with a query) through the gateway, concurrency 8, ~2,000 requests;
* listing without a query (membership from the bindings), a smaller run;
* visibility: 50 binding / lifecycle events published one at a time, each timed from just
  before the publish until a search shows the change (polled every ~10 ms).

Measurements only, nothing asserted. Results: bench/results/search_capabilities.json.
"""

from __future__ import annotations

import asyncio
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    bench_mesh,
    cpu_per_request,
    cpu_snapshot,
    latency_summary,
    mesh_processes,
    percentile,
    print_table,
    write_result,
)

KN = "bench_kn"
BOXES = 10
TOOLS_PER_BOX = 1_000
REQUESTS = 2_000
LIST_REQUESTS = 40
CONCURRENCY = 8
VISIBILITY_EVENTS = 50

VERBS = [
    ("汇总", "summarize"),
    ("计算", "compute"),
    ("查询", "query"),
    ("同步", "sync"),
    ("导出", "export"),
    ("校验", "validate"),
    ("预测", "forecast"),
    ("分配", "allocate"),
    ("审计", "audit"),
    ("评分", "score"),
    ("对账", "reconcile"),
    ("归档", "archive"),
    ("催收", "collect"),
    ("排程", "schedule"),
    ("盘点", "count"),
    ("报价", "quote"),
]
NOUNS = [
    ("库存", "inventory"),
    ("订单", "order"),
    ("发票", "invoice"),
    ("运单", "shipment"),
    ("供应商", "supplier"),
    ("客户", "customer"),
    ("汇率", "exchange rate"),
    ("物料", "material"),
    ("仓库", "warehouse"),
    ("合同", "contract"),
    ("付款", "payment"),
    ("退货", "return"),
    ("预算", "budget"),
    ("产能", "capacity"),
    ("质检", "inspection"),
    ("工单", "work order"),
    ("账期", "credit term"),
    ("关税", "customs duty"),
    ("运费", "freight"),
    ("门店", "store"),
]
SCOPES = [
    ("按月", "monthly"),
    ("按区域", "by region"),
    ("按品类", "by category"),
    ("按渠道", "by channel"),
    ("按批次", "by batch"),
    ("按币种", "by currency"),
    ("按季度", "quarterly"),
    ("按客户", "per customer"),
]


def tool_text(i: int) -> tuple[str, str, str]:
    """Name, description and use rule of synthetic tool ``i`` (deterministic)."""
    rng = random.Random(i)
    (vz, ve), (nz, ne), (sz, se) = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(SCOPES)
    (_, ne2) = rng.choice(NOUNS)
    name = f"{sz}{vz}{nz} {ve} {ne} {se} #{i}"
    description = f"{sz}{vz}{nz}，并关联{rng.choice(NOUNS)[0]}数据。{ve.capitalize()} {ne} {se}, linked to {ne2}."
    use_rule = f"只读；{nz}口径须一致。" if rng.random() < 0.5 else ""
    return name, description, use_rule


def catalog_events(
    kn_id: str = KN, boxes: int = BOXES, per_box: int = TOOLS_PER_BOX, account: str = "dev"
) -> list[Any]:
    """Toolboxes, lifecycle for every owner and tool, a network with grants and all bindings."""
    from bkn_common.contracts import events as ev

    out: list[Any] = []
    refs = []
    lifecycle: list[Any] = []
    for b in range(boxes):
        box_id = f"bx{b}"
        tools = []
        for k in range(per_box):
            i = b * per_box + k
            name, description, use_rule = tool_text(i)
            tools.append(
                ev.ToolSpec(
                    id=f"t{i:05d}",
                    name=name,
                    description=description,
                    use_rule=use_rule,
                    function=ev.FunctionCode(source="def handler(a):\n    return a\n"),
                    input_schema={"type": "object", "properties": {"amount": {"type": "number"}}},
                )
            )
            refs.append(ev.CapabilityRef(capability_type="function", capability_id=f"t{i:05d}", owner_id=box_id))
            lifecycle.append(ev.ToolStateChanged(owner_id=box_id, tool_id=f"t{i:05d}", enabled=True))
        out.append(ev.ToolboxUpserted(id=box_id, name=f"bench box {b}", kind="function", tools=tuple(tools)))
        lifecycle.append(ev.OwnerStateChanged(owner_kind="toolbox", owner_id=box_id, state="published"))
    out += lifecycle
    out.append(
        ev.NetworkUpserted(
            kn_id=kn_id,
            name="bench network",
            grants=(ev.NetworkGrant(account=account, permissions=("view_detail", "execute")),),
        )
    )
    out.append(ev.ProxySyncChanged(kn_id=kn_id, proxy_id=f"proxy-{kn_id}", synced=True))
    out.append(ev.BindingsReplaced(kn_id=kn_id, capabilities=tuple(refs)))
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        (vz, ve), (nz, ne), (sz, se) = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(SCOPES)
        out.append(rng.choice([f"{vz}{nz}", f"{sz}{vz}{nz}", f"{ve} {ne}", f"{ne} {se}", f"{nz} {ve}"]))
    return out


async def _load(gateway: str, key: str, bodies: list[dict[str, Any]]) -> dict[str, Any]:
    """Closed-loop load at CONCURRENCY. The load generator is aiohttp: on this 2-core machine
    it shares the CPU with the mesh, and it costs about a quarter of httpx per request."""
    import aiohttp

    latencies: list[float] = []
    errors = 0
    returned = 0
    work = list(enumerate(bodies))
    headers = {"Authorization": f"Bearer {key}"}
    url = f"{gateway}/api/agent-retrieval/v1/kn/search_capabilities"
    connector = aiohttp.TCPConnector(limit=CONCURRENCY)
    async with aiohttp.ClientSession(headers=headers, connector=connector) as client:

        async def post(body: dict[str, Any]) -> tuple[int, Any]:
            async with client.post(url, json=body) as response:
                return response.status, await response.json()

        async def worker() -> None:
            nonlocal errors, returned
            while work:
                _, body = work.pop()
                started = time.perf_counter()
                status, data = await post(body)
                latencies.append((time.perf_counter() - started) * 1000)
                if status != 200:
                    errors += 1
                else:
                    returned += len(data["capabilities"])

        for body in bodies[:20]:  # warm-up (connections, caches), not measured
            await post(body)
        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        wall = time.perf_counter() - began
    summary = latency_summary(latencies, wall)
    return {**summary, "errors": errors, "mean_results": returned / max(1, len(bodies) - errors)}


async def _visibility(layout: Any, publisher: Any, gateway: str, key: str) -> dict[str, Any]:
    """Mount 25 new tools and then disable them: ms from publish until search shows it."""
    import httpx

    from bkn_common.contracts import events as ev

    n = VISIBILITY_EVENTS // 2
    marks = [f"zqv{i:02d}mark" for i in range(n)]
    box = ev.ToolboxUpserted(
        id="bxv",
        name="visibility",
        kind="function",
        tools=tuple(
            ev.ToolSpec(
                id=f"v{i:02d}",
                name=f"{marks[i]} probe",
                description=f"visibility probe {marks[i]}",
                function=ev.FunctionCode(source="def handler(a):\n    return a\n"),
            )
            for i in range(n)
        ),
    )
    await publisher.publish_many(
        [
            box,
            ev.OwnerStateChanged(owner_kind="toolbox", owner_id="bxv", state="published"),
            *(ev.ToolStateChanged(owner_id="bxv", tool_id=f"v{i:02d}", enabled=True) for i in range(n)),
        ]
    )
    url = f"{gateway}/api/agent-retrieval/v1/kn/search_capabilities"
    samples: dict[str, list[float]] = {"binding.mounted": [], "lifecycle.tool_state.changed": []}
    async with httpx.AsyncClient(timeout=30, headers={"Authorization": f"Bearer {key}"}) as client:

        async def visible(i: int) -> bool:
            response = await client.post(url, json={"kn_id": KN, "query": marks[i], "limit": 5})
            return any(c["capability_id"] == f"v{i:02d}" for c in response.json().get("capabilities", []))

        async def timed(event: Any, want: bool, i: int) -> float:
            started = time.perf_counter()
            await publisher.publish(event)
            while await visible(i) != want:
                if time.perf_counter() - started > 30:
                    raise TimeoutError(f"{event.type} for v{i:02d} not visible after 30 s")
                await asyncio.sleep(0.01)
            return (time.perf_counter() - started) * 1000

        for i in range(n):
            ref = ev.CapabilityRef(capability_type="function", capability_id=f"v{i:02d}", owner_id="bxv")
            samples["binding.mounted"].append(await timed(ev.BindingMounted(kn_id=KN, capability=ref), True, i))
        for i in range(n):
            samples["lifecycle.tool_state.changed"].append(
                await timed(ev.ToolStateChanged(owner_id="bxv", tool_id=f"v{i:02d}", enabled=False), False, i)
            )
    every = [x for xs in samples.values() for x in xs]
    out: dict[str, Any] = {"all": _vis(every)}
    out.update({name: _vis(xs) for name, xs in samples.items()})
    return out


def _vis(samples: list[float]) -> dict[str, float]:
    return {
        "n": float(len(samples)),
        "p50_ms": percentile(samples, 50),
        "p95_ms": percentile(samples, 95),
        "max_ms": max(samples),
    }


async def _run(layout: Any, key: str) -> dict[str, Any]:
    import httpx

    from bkn_common.infra.kafka import EventPublisher, make_broker
    from bkn_common.infra.settings import ServiceSettings

    broker = make_broker(ServiceSettings(kafka_bootstrap_servers=layout.kafka, service_name="bench"))
    await broker.connect()
    publisher = EventPublisher(broker, layout.topic_prefix)
    try:
        events = catalog_events()
        started = time.perf_counter()
        await publisher.publish_many(events)
        published_s = time.perf_counter() - started
        gateway = layout.gateway_url
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(timeout=60, headers=headers) as client:
            url = f"{gateway}/api/agent-retrieval/v1/kn/search_capabilities"
            # until the gateway sees all 10,000: ranked first (cheap to poll), then the listing
            # (a full listing resolves every binding in tool-executor: poll it sparingly)
            last = f"t{BOXES * TOOLS_PER_BOX - 1:05d}"
            probes = (
                ({"kn_id": KN, "query": tool_text(BOXES * TOOLS_PER_BOX - 1)[0], "limit": 50}, 0.2),
                ({"kn_id": KN, "limit": 1}, 2.0),
            )
            for body, pause in probes:
                while True:
                    answer = await client.post(url, json=body)
                    data = answer.json() if answer.status_code == 200 else {}
                    if "query" in body and last in [c["capability_id"] for c in data.get("capabilities", [])]:
                        break
                    if "query" not in body and data.get("total_matched") == BOXES * TOOLS_PER_BOX:
                        break
                    if time.perf_counter() - started > 600:
                        raise TimeoutError("the mesh did not materialize the bench catalogue in 600 s")
                    await asyncio.sleep(pause)
        visible_s = time.perf_counter() - started
        processes = mesh_processes(layout)
        before = cpu_snapshot(processes)
        ranked_stats = await _load(gateway, key, [{"kn_id": KN, "query": q} for q in queries(REQUESTS)])
        ranked_cpu = cpu_per_request(before, cpu_snapshot(processes), REQUESTS + 20)
        listing = await _load(gateway, key, [{"kn_id": KN} for _ in range(LIST_REQUESTS)])
        visibility = await _visibility(layout, publisher, gateway, key)
    finally:
        await broker.stop()
    return {
        "catalogue": {
            "capabilities": BOXES * TOOLS_PER_BOX,
            "events": len(events),
            "publish_s": published_s,
            "visible_through_gateway_s": visible_s,
        },
        "ranked": ranked_stats,
        "ranked_cpu_ms_per_request": ranked_cpu,
        "listing": listing,
        "visibility": visibility,
    }


def main() -> dict[str, Any]:
    with bench_mesh("search") as (layout, _key, keys):
        result = asyncio.run(_run(layout, keys["dev"]))
    config = {
        "concurrency": CONCURRENCY,
        "requests": REQUESTS,
        "list_requests": LIST_REQUESTS,
        "visibility_events": VISIBILITY_EVENTS,
        "limit": 20,
    }
    print_table(
        "search_capabilities: 10,000 mounted capabilities, concurrency 8",
        [
            {
                "case": name,
                "n": int(r["n"]),
                "p50_ms": r["p50_ms"],
                "p90_ms": r["p90_ms"],
                "p99_ms": r["p99_ms"],
                "req_per_s": r["req_per_s"],
                "errors": r["errors"],
                "mean_results": r["mean_results"],
            }
            for name, r in (("query (ranked)", result["ranked"]), ("no query (binding order)", result["listing"]))
        ],
    )
    print_table(
        "visibility: event published → visible in search",
        [
            {"event": name, "n": int(r["n"]), "p50_ms": r["p50_ms"], "p95_ms": r["p95_ms"], "max_ms": r["max_ms"]}
            for name, r in result["visibility"].items()
        ],
    )
    cpu = result["ranked_cpu_ms_per_request"]
    print_table(
        "CPU per ranked search, by process (ms; 2 cores: the sum bounds req/s)",
        [{"process": name, "cpu_ms": ms} for name, ms in sorted(cpu.items(), key=lambda kv: -kv[1])]
        + [{"process": "all", "cpu_ms": sum(cpu.values())}],
    )
    catalog = result["catalogue"]
    print(
        f"   catalogue: {catalog['events']} events published in {catalog['publish_s']:.2f} s, "
        f"visible through the gateway after {catalog['visible_through_gateway_s']:.2f} s"
    )
    payload = {"config": config, **result}
    path = write_result("search_capabilities", payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
