"""TOON vs JSON: response sizes of the ontology reads on the demo network, through the gateway.

Each read is sent twice (``response_format=json`` and ``toon``); the table lists the body bytes
of both and the reduction. "tabular" marks results whose main payload is a list of uniform
objects (the case TOON targets: one header row of keys, then one line per object); subgraph
``objects`` are a map keyed by node, which TOON writes as nested objects, not a table.
"""

from __future__ import annotations

from typing import Any

import httpx

from bench.harness import bench_mesh, print_table, write_result

KN = "supply_chain"
CASES: list[tuple[str, str, dict[str, Any], bool]] = [
    ("purchase orders ×100", "query_object_instance",
     {"ot_id": "purchase_order", "limit": 100}, True),
    ("sales orders ×100 by date", "query_object_instance",
     {"ot_id": "sales_order", "limit": 100, "sort": [{"field": "order_date", "direction": "desc"}]},
     True),
    ("customers (all 40)", "query_object_instance", {"ot_id": "customer", "limit": 100}, True),
    ("suppliers, 3 properties", "query_object_instance",
     {"ot_id": "supplier", "limit": 100, "properties": ["name", "city", "rating"]}, True),
    ("materials ×60", "query_object_instance", {"ot_id": "material", "limit": 100}, True),
    ("list_knowledge_networks", "list_knowledge_networks", {}, True),
    ("get_kn_detail full", "get_kn_detail", {"detail_level": "full"}, False),
    ("search_schema 订单", "search_schema", {"query": "订单"}, False),
    ("subgraph customer→order→shipment", "query_instance_subgraph",
     {"relation_type_paths": [{
         "object_types": [{"id": "customer", "limit": 5}, {"id": "sales_order", "limit": 50},
                          {"id": "shipment", "limit": 50}],
         "relation_types": [{"relation_type_id": "rel_customer_so"},
                            {"relation_type_id": "rel_so_shipment"}]}]}, False),
    ("explore supplier 2 hops", "explore_subgraph",
     {"source_object_type_id": "supplier", "direction": "bidirectional", "path_length": 2,
      "limit": 5}, False),
]  # fmt: skip


def _bytes(client: httpx.Client, tool: str, body: dict[str, Any], fmt: str) -> int:
    payload = body if tool == "list_knowledge_networks" else {"kn_id": KN, **body}
    response = client.post(f"/api/agent-retrieval/v1/kn/{tool}",
                           params={"response_format": fmt}, json=payload)
    response.raise_for_status()
    return len(response.content)


def main() -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    with bench_mesh("toon") as (layout, key, _keys), httpx.Client(
        base_url=layout.gateway_url, headers={"Authorization": f"Bearer {key}"}, timeout=60
    ) as client:
        for label, tool, body, tabular in CASES:
            json_bytes = _bytes(client, tool, body, "json")
            toon_bytes = _bytes(client, tool, body, "toon")
            rows.append({
                "result": label, "tabular": tabular, "json_bytes": json_bytes,
                "toon_bytes": toon_bytes,
                "reduction_pct": round(100 * (1 - toon_bytes / json_bytes), 1),
            })  # fmt: skip
    tabular_rows = [r for r in rows if r["tabular"]]
    summary = {
        "tabular_json_bytes": sum(r["json_bytes"] for r in tabular_rows),
        "tabular_toon_bytes": sum(r["toon_bytes"] for r in tabular_rows),
    }
    summary["tabular_reduction_pct"] = round(
        100 * (1 - summary["tabular_toon_bytes"] / summary["tabular_json_bytes"]), 1)
    print_table("TOON vs JSON body size (demo network, through the gateway)", rows)
    print(f"tabular results overall: {summary['tabular_reduction_pct']}% smaller in TOON")
    result = {"rows": rows, "summary": summary}
    write_result("toon_size", result)
    return result


if __name__ == "__main__":
    main()
