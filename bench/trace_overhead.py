"""Trace overhead: a managed execute_tool (bkn_context → operation, receipt, evidence) against
an ad hoc one (capture disabled by policy), interleaved in the same run."""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Any

import httpx

from bench.harness import bench_mesh, latency_summary, print_table, write_result

N = 300
FX = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_fx_convert",
      "arguments": {"amount": 10, "from": "USD", "to": "CNY"}}
PATH = "/api/agent-retrieval/v1/kn/"


def _timed(client: httpx.Client, tool: str, body: dict[str, Any]) -> float:
    started = time.perf_counter()
    response = client.post(PATH + tool, json=body)
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed


def main() -> dict[str, Any]:
    with ExitStack() as stack:
        managed_layout, managed_key, _ = stack.enter_context(bench_mesh("trace-managed"))
        adhoc_layout, adhoc_key, _ = stack.enter_context(
            bench_mesh("trace-adhoc", extra_env={"TRACE_RECORDER_CAPTURE_ENABLED": "false"}))
        managed = stack.enter_context(httpx.Client(base_url=managed_layout.gateway_url, timeout=30,
                                                   headers={"Authorization": f"Bearer {managed_key}"}))
        adhoc = stack.enter_context(httpx.Client(base_url=adhoc_layout.gateway_url, timeout=30,
                                                 headers={"Authorization": f"Bearer {adhoc_key}"}))
        samples: dict[str, list[float]] = {"managed": [], "ad hoc": []}
        interactions = 0
        context: dict[str, str] = {}
        for i in range(N + 20):
            if i % 100 == 0:  # at most 128 operations per interaction: start a fresh one
                started = managed.post(PATH + "bkn_start_interaction", json={
                    "question": "bench", "agent_name": "bench", "conversation_mode": "new"}).json()
                context = {k: started[k] for k in ("conversation_id", "interaction_id")}
                interactions += 1
            m = _timed(managed, "execute_tool", {**FX, "bkn_context": context})
            a = _timed(adhoc, "execute_tool", FX)
            if i >= 20:  # warm-up
                samples["managed"].append(m)
                samples["ad hoc"].append(a)
    rows = [{"mode": mode, **latency_summary(values)} for mode, values in samples.items()]
    added = rows[0]["p50_ms"] - rows[1]["p50_ms"]
    print_table(f"execute_tool: managed vs ad hoc (n={N} each, interleaved)", rows)
    print(f"trace overhead at p50: {added:.2f} ms (target <= 3 ms)")
    result = {"rows": rows, "added_p50_ms": added, "target_added_p50_ms": 3.0}
    write_result("trace_overhead", result)
    return result


if __name__ == "__main__":
    main()
