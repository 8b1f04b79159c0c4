"""run_sql on a 1,000,000-row demo table, and the MCP token cost of json vs toon answers.

1. ``run_sql``: a purchase-order table of 1,000,000 rows (generated from the demo's suppliers,
   written as CSV in the bench's run folder and declared as a data resource) joined with the
   suppliers table and grouped by region, through the gateway's REST route. The first query
   loads the table into DuckDB (reported as ``first query (load)``); the p50 is over the
   following ones.
2. MCP text content: the same tool answers requested with ``response_format`` json and toon
   over MCP (the upstream's default is toon), sized in bytes and tokens (tiktoken cl100k_base
   where installed, else bytes / 4, as ``bench/mcp_vs_rest.py`` counts).
"""

from __future__ import annotations

import asyncio
import csv
import random
import time
from pathlib import Path
from typing import Any

import httpx

from bench.harness import bench_mesh, latency_summary, print_table, write_result
from bench.mcp_vs_rest import _tokens
from bench.ontology_queries import publish_with_event_publisher
from bkn_common.contracts import events as ev

ROWS = 1_000_000
QUERIES = 15
KN = "supply_chain"
SUPPLIERS = Path(__file__).resolve().parent.parent / "examples" / "supply_chain" / "data" / "suppliers.csv"
JOIN = ("SELECT s.region, COUNT(*) AS orders, ROUND(SUM(o.amount), 2) AS total, "
        "ROUND(AVG(o.quantity), 1) AS avg_qty FROM {{.res_suppliers}} s "
        "JOIN {{.res_bench_orders}} o ON o.supplier_code = s.supplier_code "
        "WHERE o.currency <> \"JPY\" GROUP BY s.region HAVING COUNT(*) > 10 ORDER BY total DESC")
MCP_CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("purchase orders ×100", "query_object_instance",
     {"kn_id": KN, "ot_id": "purchase_order", "limit": 100}),
    ("materials ×60", "query_object_instance", {"kn_id": KN, "ot_id": "material", "limit": 60}),
    ("get_kn_detail full", "get_kn_detail", {"kn_id": KN, "detail_level": "full"}),
    ("search_schema 订单 (brief)", "search_schema", {"kn_id": KN, "query": "订单"}),
    ("list_knowledge_networks", "list_knowledge_networks", {}),
]


def _write_orders(path: Path) -> None:
    codes = [r["supplier_code"] for r in csv.DictReader(SUPPLIERS.open())]
    rng = random.Random(18)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["po_id", "supplier_code", "amount", "currency", "quantity"])
        for i in range(ROWS):
            writer.writerow([f"PO-{i:07d}", rng.choice(codes), round(rng.uniform(10, 90_000), 2),
                             rng.choice(("CNY", "USD", "EUR", "JPY")), rng.randint(1, 500)])


def _resource(path: Path) -> ev.DataResourceUpserted:
    return ev.DataResourceUpserted.model_validate({
        "id": "res_bench_orders", "name": "bench orders", "catalog_id": "erp_mysql",
        "columns": [{"name": "po_id", "type": "varchar"}, {"name": "supplier_code", "type": "varchar"},
                    {"name": "amount", "type": "double"}, {"name": "currency", "type": "varchar"},
                    {"name": "quantity", "type": "bigint"}],
        "source": {"path": str(path)},
    })


def _sql_latency(client: httpx.Client) -> tuple[float, dict[str, float], dict[str, Any]]:
    started = time.perf_counter()
    first = client.post("/api/agent-retrieval/v1/kn/run_sql", json={"sql": JOIN, "query_timeout": 600})
    first.raise_for_status()
    load_ms = (time.perf_counter() - started) * 1000
    samples = []
    for _ in range(QUERIES):
        started = time.perf_counter()
        client.post("/api/agent-retrieval/v1/kn/run_sql", json={"sql": JOIN}).raise_for_status()
        samples.append((time.perf_counter() - started) * 1000)
    return load_ms, latency_summary(samples), first.json()


async def _mcp_sizes(gateway: str, key: str) -> list[dict[str, Any]]:
    from tests.integration.mcp.support import connect, start

    rows: list[dict[str, Any]] = []
    async with connect(gateway, key) as client:
        context = await start(client, "bench")
        for label, tool, arguments in MCP_CASES:
            sizes: dict[str, Any] = {"answer": label}
            for fmt in ("json", "toon"):
                result = await client.call_tool(
                    tool, {**arguments, "bkn_context": context, "response_format": fmt})
                text = result.content[0].text  # type: ignore[union-attr]
                sizes[f"{fmt}_bytes"] = len(text.encode())
                sizes[f"{fmt}_tokens"] = _tokens(text) or round(len(text.encode()) / 4)
            sizes["toon_over_json_tokens"] = round(sizes["toon_tokens"] / sizes["json_tokens"], 3)
            rows.append(sizes)
    return rows


def main() -> dict[str, Any]:
    with bench_mesh("run_sql") as (layout, key, _keys):
        orders = layout.run_dir / "bench_orders.csv"
        written = time.perf_counter()
        _write_orders(orders)
        write_s = time.perf_counter() - written
        asyncio.run(publish_with_event_publisher(layout.kafka, layout.topic_prefix,
                                                 [_resource(orders)]))
        with httpx.Client(base_url=layout.gateway_url, headers={"Authorization": f"Bearer {key}"},
                          timeout=900) as client:
            deadline = time.monotonic() + 60
            while client.post("/api/agent-retrieval/v1/kn/describe_resource",
                              json={"resource_id": "res_bench_orders"}).status_code != 200:
                if time.monotonic() > deadline:
                    raise RuntimeError("the bench resource never reached ontology-query")
                time.sleep(0.2)
            load_ms, latency, answer = _sql_latency(client)
        mcp_rows = asyncio.run(_mcp_sizes(layout.gateway_url, key))
    sql_rows = [{"query": "GROUP BY region over a 1,000,000-row join", "rows": ROWS,
                 "first query (load) ms": round(load_ms), **{k: round(v, 1) for k, v in latency.items()}}]
    print_table(f"run_sql, {ROWS:,} purchase orders ⋈ suppliers (REST, DuckDB)", sql_rows)
    print(f"   csv written in {write_s:.1f}s; answer: {answer['total_count']} regions")
    print_table("MCP text content: response_format json vs toon (default toon)", mcp_rows)
    total_json = sum(r["json_tokens"] for r in mcp_rows)
    total_toon = sum(r["toon_tokens"] for r in mcp_rows)
    print(f"   all cases: toon/json tokens = {total_toon / total_json:.3f}; tokens: "
          f"{'tiktoken cl100k_base' if _tokens('x') else 'bytes / 4 (tiktoken not installed)'}")
    result = {"run_sql": sql_rows, "mcp_response_format": mcp_rows,
              "toon_over_json_tokens_all": round(total_toon / total_json, 3)}
    write_result("run_sql", result)
    return result


if __name__ == "__main__":
    main()
