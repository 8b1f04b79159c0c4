"""execute_tool through the gateway vs the upstream called directly.

    python bench/execute_tool.py

On a private mesh with the demo bundles: ``execute_tool`` on ``box_finance/tool_fx_convert``
(REST, managed: one interaction from ``bkn_start_interaction`` passed as ``bkn_context``, so
every call also records an operation in the trace core and a receipt on Kafka) against
``POST /fx/convert`` on the demo finance API with httpx. N=300 of each, sequential, the two
interleaved so both see the same machine load. Reports both p50s and the added latency.

Measurements only, nothing asserted. Results: bench/results/execute_tool.json.
"""

from __future__ import annotations

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
    print_table,
    write_result,
)

N = 300
WARMUP = 10
ARGUMENTS = {"amount": 1200, "from": "USD", "to": "CNY"}


def _measure(layout: Any, key: str) -> dict[str, Any]:
    import httpx

    finance = layout.urls()["finance_api"]
    api = f"{layout.gateway_url}/api/agent-retrieval/v1/kn"
    with (
        httpx.Client(timeout=30, headers={"Authorization": f"Bearer {key}"}) as gateway,
        httpx.Client(timeout=30) as direct,
    ):

        def new_context() -> dict[str, str]:
            """An interaction records at most 128 operations: a fresh one every 100 calls."""
            started = gateway.post(
                f"{api}/bkn_start_interaction",
                json={
                    "question": "benchmark: convert 1200 USD to CNY",
                    "agent_name": "bench",
                    "conversation_mode": "new",
                },
            )
            started.raise_for_status()
            return {k: started.json()[k] for k in ("conversation_id", "interaction_id")}

        body = {
            "bkn_context": new_context(),
            "kn_id": "supply_chain",
            "toolbox_id": "box_finance",
            "tool_id": "tool_fx_convert",
            "arguments": ARGUMENTS,
        }
        errors = {"execute_tool": 0, "direct": 0}
        samples: dict[str, list[float]] = {"execute_tool": [], "direct": []}
        answers: dict[str, Any] = {}

        def once(name: str, record: bool) -> None:
            began = time.perf_counter()
            if name == "direct":
                response = direct.post(f"{finance}/fx/convert", json=ARGUMENTS)
            else:
                response = gateway.post(f"{api}/execute_tool", json=body)
            elapsed = (time.perf_counter() - began) * 1000
            if response.status_code != 200:
                errors[name] += 1
                return
            answers[name] = response.json()
            if record:
                samples[name].append(elapsed)

        for _ in range(WARMUP):
            once("direct", False)
            once("execute_tool", False)
        processes = mesh_processes(layout)
        before = cpu_snapshot(processes)
        for i in range(N):
            if i % 100 == 0:
                body["bkn_context"] = new_context()  # not timed
            once("direct", True)
            once("execute_tool", True)
        time.sleep(1.0)  # background completions and span batches (500 ms) land
        cpu = cpu_per_request(before, cpu_snapshot(processes), N)
        stats_after = direct.get(f"{finance}/_stats").json()
    return {
        "execute_tool": {**latency_summary(samples["execute_tool"]), "errors": errors["execute_tool"]},
        "direct": {**latency_summary(samples["direct"]), "errors": errors["direct"]},
        "same_answer": answers.get("execute_tool") == answers.get("direct"),
        "upstream_fx_convert_calls": stats_after.get("fx_convert"),
        "cpu_ms_per_pair": cpu,
    }


def main() -> dict[str, Any]:
    with bench_mesh("execute") as (layout, _key, keys):
        result = _measure(layout, keys["dev"])
    gateway, direct = result["execute_tool"], result["direct"]
    added = {
        "p50_ms": gateway["p50_ms"] - direct["p50_ms"],
        "p90_ms": gateway["p90_ms"] - direct["p90_ms"],
        "p99_ms": gateway["p99_ms"] - direct["p99_ms"],
    }
    print_table(
        f"execute_tool vs direct upstream call (fx_convert, N={N} each, sequential)",
        [
            {
                "path": name,
                "n": int(r["n"]),
                "p50_ms": r["p50_ms"],
                "p90_ms": r["p90_ms"],
                "p99_ms": r["p99_ms"],
                "mean_ms": r["mean_ms"],
                "errors": r["errors"],
            }
            for name, r in (("execute_tool (REST, managed)", gateway), ("finance API directly", direct))
        ]
        + [
            {
                "path": "added by the mesh",
                "n": N,
                **added,
                "mean_ms": gateway["mean_ms"] - direct["mean_ms"],
                "errors": "",
            }
        ],
    )
    print(f"   same answer: {result['same_answer']}; upstream fx_convert calls: {result['upstream_fx_convert_calls']}")
    cpu = result["cpu_ms_per_pair"]
    print_table(
        "CPU per managed execute_tool plus one direct call, by process (ms; 2 cores, so the "
        "work after the answer competes with the next call)",
        [{"process": name, "cpu_ms": ms} for name, ms in sorted(cpu.items(), key=lambda kv: -kv[1])]
        + [{"process": "all", "cpu_ms": sum(cpu.values())}],
    )
    payload = {
        "config": {"n": N, "warmup": WARMUP, "mode": "managed (bkn_context)", "interleaved": True},
        **result,
        "added": added,
    }
    path = write_result("execute_tool", payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
