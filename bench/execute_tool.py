"""execute_tool through the gateway vs the upstream called directly.

    python bench/execute_tool.py

On a private mesh with the demo bundles: ``execute_tool`` on ``box_finance/tool_fx_convert``
(REST, managed: one interaction from ``bkn_start_interaction`` passed as ``bkn_context``, so
every call also records an operation in the trace core and a receipt on Kafka) against
``POST /fx/convert`` on the demo finance API with httpx. N=300 of each, sequential, the two
interleaved so both see the same machine load. Reports both p50s and the added latency.

Also what a managed call costs Kafka: records per call by topic (end offsets of every topic of
the mesh before and after the calls, once nothing more arrives) and the broker's CPU per call
(utime + stime of its process from /proc). By default the mesh runs on a broker of the
benchmark's own (so its CPU is this benchmark's alone), after measuring its idle CPU with the
mesh up; ``BENCH_SHARED_KAFKA=1`` uses the shared local broker instead (its CPU then also
counts everyone else's traffic). ``ROUNDS`` rounds after one warm-up; the summary is the
median of the rounds.

Then the ContextForge-style pair (how IBM ContextForge's gateway overhead is measured): one
sequential keep-alive client per path, ``BLOCK_CALLS`` calls of the upstream directly, then
as many through the mesh, alternating until each path made ``PAIR_CALLS`` calls; the added
latency is the difference of the two distributions measured side by side.

Last, receipt visibility (issue 16 §4: fetch settings must keep it at p95 ≤ 100 ms): after each
of ``VISIBILITY_CALLS`` managed calls, how long until trace-recorder's interaction view holds
the call's execution receipt.

``BENCH_UNSIGNED=1`` runs the mesh without a receipt signing key (receipts unsigned), to set
the cost of signing against the default.

Measurements only, nothing asserted. Results: bench/results/execute_tool.json.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    Broker,
    bench_mesh,
    cpu_per_request,
    cpu_snapshot,
    latency_summary,
    mesh_processes,
    percentile,
    print_table,
    private_kafka,
    records_per_call,
    settled_end_offsets,
    shared_broker,
    write_result,
)

N = 300
WARMUP = 300  # a freshly started broker's JIT needs a few hundred calls (round 1 of 3 cost twice round 3 with 10)
ROUNDS = 3
IDLE_SECONDS = 10.0
PAIR_CALLS = 2000  # ContextForge-style: per path, in alternating blocks
BLOCK_CALLS = 100
VISIBILITY_CALLS = 50
ARGUMENTS = {"amount": 1200, "from": "USD", "to": "CNY"}


def _measure(layout: Any, key: str, broker: Broker) -> dict[str, Any]:
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
        answers: dict[str, Any] = {}
        failures: list[dict[str, Any]] = []  # the first few refusals, to say what failed

        def once(name: str, samples: dict[str, list[float]], errors: dict[str, int]) -> None:
            began = time.perf_counter()
            if name == "direct":
                response = direct.post(f"{finance}/fx/convert", json=ARGUMENTS)
            else:
                response = gateway.post(f"{api}/execute_tool", json=body)
            elapsed = (time.perf_counter() - began) * 1000
            if response.status_code != 200:
                errors[name] += 1
                if len(failures) < 5:
                    failures.append({"path": name, "status": response.status_code,
                                     "body": response.text[:300]})
                return
            answers[name] = response.json()
            samples[name].append(elapsed)

        for i in range(WARMUP):
            if i and i % 100 == 0:
                body["bkn_context"] = new_context()
            once("direct", {"direct": [], "execute_tool": []}, {"direct": 0, "execute_tool": 0})
            once("execute_tool", {"direct": [], "execute_tool": []}, {"direct": 0, "execute_tool": 0})
        processes = mesh_processes(layout)
        if broker.pid is not None:
            processes["kafka"] = broker.pid
        offsets = settled_end_offsets(layout)
        idle_before = cpu_snapshot(processes)
        time.sleep(IDLE_SECONDS)  # the mesh up and idle: what the broker burns with no traffic
        idle = cpu_per_request(idle_before, cpu_snapshot(processes), 1)
        idle_ms_per_s = {name: ms / IDLE_SECONDS for name, ms in idle.items()}

        rounds = []
        for _ in range(ROUNDS):
            errors = {"execute_tool": 0, "direct": 0}
            samples: dict[str, list[float]] = {"execute_tool": [], "direct": []}
            before = cpu_snapshot(processes)
            hops_before = _server_seconds(layout)
            began = time.monotonic()
            for i in range(N):
                if i % 100 == 0:
                    body["bkn_context"] = new_context()  # not timed
                once("direct", samples, errors)
                once("execute_tool", samples, errors)
            after_offsets = settled_end_offsets(layout)  # background completions and span batches land
            seconds = time.monotonic() - began
            cpu = cpu_per_request(before, cpu_snapshot(processes), N)
            hops = _hop_means(hops_before, _server_seconds(layout))
            records = records_per_call(offsets, after_offsets, N)
            offsets = after_offsets
            rounds.append({
                "execute_tool": {**latency_summary(samples["execute_tool"]), "errors": errors["execute_tool"]},
                "direct": {**latency_summary(samples["direct"]), "errors": errors["direct"]},
                "added_p50_ms": statistics.median(samples["execute_tool"]) - statistics.median(samples["direct"]),
                "cpu_ms_per_pair": cpu,
                "server_ms_by_hop": hops,
                # the broker's idle burn over the round's length is not the calls' doing
                "kafka_cpu_ms_per_call": cpu.get("kafka", float("nan")),
                "kafka_cpu_ms_per_call_minus_idle": cpu.get("kafka", float("nan"))
                - idle_ms_per_s.get("kafka", 0.0) * seconds / N,
                "records_per_call": records,
                "records_per_call_total": sum(records.values()),
                "seconds": seconds,
            })
        pair = _blocks(once, new_context, body)
        visibility = _receipt_visibility(layout, gateway, api, new_context)
        stats_after = direct.get(f"{finance}/_stats").json()
    return {
        "rounds": rounds,
        "contextforge_style": pair,
        "receipt_visibility": visibility,
        "failures": failures,
        "idle_cpu_ms_per_s": idle_ms_per_s,
        "same_answer": answers.get("execute_tool") == answers.get("direct"),
        "upstream_fx_convert_calls": stats_after.get("fx_convert"),
    }


def _blocks(once: Any, new_context: Any, body: dict[str, Any]) -> dict[str, Any]:
    """``PAIR_CALLS`` calls per path in alternating blocks of ``BLOCK_CALLS`` (direct, then
    through the mesh); a fresh interaction per block (not timed)."""
    errors = {"execute_tool": 0, "direct": 0}
    samples: dict[str, list[float]] = {"execute_tool": [], "direct": []}
    for _ in range(PAIR_CALLS // BLOCK_CALLS):
        for _ in range(BLOCK_CALLS):
            once("direct", samples, errors)
        body["bkn_context"] = new_context()
        for _ in range(BLOCK_CALLS):
            once("execute_tool", samples, errors)
    mesh, direct = (latency_summary(samples[k]) for k in ("execute_tool", "direct"))
    return {
        "calls_per_path": PAIR_CALLS, "block_calls": BLOCK_CALLS,
        "execute_tool": {**mesh, "errors": errors["execute_tool"]},
        "direct": {**direct, "errors": errors["direct"]},
        "added": {q: mesh[q] - direct[q] for q in ("p50_ms", "p90_ms", "p99_ms", "mean_ms")},
    }


HOPS = (  # (service URL key, route template, method, label), in the order a managed call meets them
    ("gateway", "/api/agent-retrieval/v1/kn/{tool_name}", "POST", "gateway: execute_tool (all of it)"),
    ("trace_recorder", "/internal/v1/operations/begin", "POST", "trace-recorder: operations/begin"),
    ("tool_executor", "/internal/v1/execute", "POST", "tool-executor: execute (upstream included)"),
    ("trace_recorder", "/internal/v1/operations/complete", "POST",
     "trace-recorder: operations/complete (after answering)"),
)


def _server_seconds(layout: Any) -> dict[str, tuple[float, float]]:
    """(sum, count) of ``bkn_http_request_duration_seconds`` for each hop, from the services'
    own ``/metrics`` (each scraped once): time inside each server, from its first middleware
    to its last byte."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    urls = {**layout.urls(), "gateway": layout.gateway_url}
    samples: dict[tuple[str, str, str, str], float] = {}  # (service, route, method, sum|count)
    for service in dict.fromkeys(service for service, _, _, _ in HOPS):
        text = httpx.get(f"{urls[service]}/metrics", timeout=10).text
        for family in text_string_to_metric_families(text):
            if family.name != "bkn_http_request_duration_seconds":
                continue
            for sample in family.samples:
                part = sample.name.rsplit("_", 1)[1]
                if part in ("sum", "count"):
                    samples[(service, sample.labels["route"], sample.labels["method"], part)] = sample.value
    return {label: (samples.get((service, route, method, "sum"), 0.0),
                    samples.get((service, route, method, "count"), 0.0))
            for service, route, method, label in HOPS}


def _hop_means(before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Mean ms per request inside each server between two scrapes."""
    means = {}
    for label, (total, count) in after.items():
        calls = count - before.get(label, (0.0, 0.0))[1]
        if calls > 0:
            means[label] = (total - before[label][0]) * 1000 / calls
    return means


def _receipt_visibility(layout: Any, gateway: Any, api: str, new_context: Any) -> dict[str, Any]:
    """ms from a managed call's answer until trace-recorder's view of the interaction holds its
    execution receipt (folded from ``bkn.execution-receipts.v1``), polled every ~2 ms with
    ``GET /internal/v1/interactions/{id}`` signed like a mesh service: what trace-recorder's
    fetch settings cost a reader of the trace."""
    import httpx

    from bkn_common.infra.mesh_auth import MeshSigner
    from bkn_common.infra.mesh_client import MeshAuth

    context = new_context()
    body = {"bkn_context": context, "kn_id": "supply_chain", "toolbox_id": "box_finance",
            "tool_id": "tool_fx_convert", "arguments": ARGUMENTS}
    url = f"{layout.urls()['trace_recorder']}/internal/v1/interactions/{context['interaction_id']}"
    took: list[float] = []
    with httpx.Client(timeout=10, auth=MeshAuth(MeshSigner(layout.mesh_secret, "bench"))) as trace:
        for calls in range(1, VISIBILITY_CALLS + 1):
            gateway.post(f"{api}/execute_tool", json=body).raise_for_status()
            answered = time.perf_counter()
            while time.perf_counter() - answered < 5.0:
                view = trace.get(url).json()
                if sum(len(op.get("execution_receipts", [])) for op in view.get("operations", [])) >= calls:
                    took.append((time.perf_counter() - answered) * 1000)
                    break
                time.sleep(0.002)
    summary = {**latency_summary(took), "p95_ms": percentile(took, 95)} if took else {}
    return {"calls": VISIBILITY_CALLS, "seen": len(took), **summary}


def _median(rounds: list[dict[str, Any]], *path: str) -> float:
    values = []
    for r in rounds:
        value: Any = r
        for step in path:
            value = value.get(step, 0.0)
        values.append(float(value))
    return statistics.median(values)


def _broker_alone_ms_per_s(broker: Broker) -> float:
    """The private broker's idle CPU before the mesh connects (nan for the shared one)."""
    if not broker.private or broker.pid is None:
        return float("nan")
    before = cpu_snapshot({"kafka": broker.pid})
    time.sleep(IDLE_SECONDS)
    return cpu_per_request(before, cpu_snapshot({"kafka": broker.pid}), 1).get("kafka", float("nan")) / IDLE_SECONDS


def _broker() -> AbstractContextManager[Broker]:
    if os.environ.get("BENCH_SHARED_KAFKA") == "1":
        return nullcontext(shared_broker())
    return private_kafka("execute")


def main() -> dict[str, Any]:
    with _broker() as broker:
        alone = _broker_alone_ms_per_s(broker)
        # BENCH_UNSIGNED=1: no receipt signing key, so the added cost of signing shows side by side
        unsigned = {"PROVENANCE_KEYS_FILE": ""} if os.environ.get("BENCH_UNSIGNED") == "1" else {}
        with bench_mesh("execute", extra_env=unsigned, kafka=broker.bootstrap) as (layout, _key, keys):
            result = _measure(layout, keys["dev"], broker)
    result["idle_cpu_ms_per_s"]["kafka without the mesh"] = alone
    rounds = result["rounds"]
    gateway = {k: _median(rounds, "execute_tool", k) for k in ("n", "p50_ms", "p90_ms", "p99_ms", "mean_ms", "errors")}
    direct = {k: _median(rounds, "direct", k) for k in ("n", "p50_ms", "p90_ms", "p99_ms", "mean_ms", "errors")}
    added = {q: _median([{"d": r["execute_tool"][q] - r["direct"][q]} for r in rounds], "d")
             for q in ("p50_ms", "p90_ms", "p99_ms", "mean_ms")}
    print_table(
        f"execute_tool vs direct upstream call (fx_convert, N={N} each, sequential, interleaved; "
        f"median of {ROUNDS} rounds)",
        [
            {"path": name, "n": int(r["n"]), "p50_ms": r["p50_ms"], "p90_ms": r["p90_ms"],
             "p99_ms": r["p99_ms"], "mean_ms": r["mean_ms"], "errors": r["errors"]}
            for name, r in (("execute_tool (REST, managed)", gateway), ("finance API directly", direct))
        ]
        + [{"path": "added by the mesh", "n": N, **added, "errors": ""}],
    )
    print("   added p50 by round (ms): " + ", ".join(f"{r['added_p50_ms']:.2f}" for r in rounds))
    print(f"   same answer: {result['same_answer']}; upstream fx_convert calls: {result['upstream_fx_convert_calls']}")
    for failure in result["failures"]:
        print(f"   failed call ({failure['path']}): {failure['status']} {failure['body']}")
    pair = result["contextforge_style"]
    print_table(
        f"ContextForge-style pair: one sequential keep-alive client per path, {PAIR_CALLS} calls each "
        f"in alternating blocks of {BLOCK_CALLS} (direct, then through the mesh)",
        [
            {"path": name, "n": int(r["n"]), "p50_ms": r["p50_ms"], "p90_ms": r["p90_ms"],
             "p99_ms": r["p99_ms"], "mean_ms": r["mean_ms"], "errors": r["errors"]}
            for name, r in (("execute_tool (REST, managed)", pair["execute_tool"]),
                            ("finance API directly", pair["direct"]))
        ]
        + [{"path": "added by the mesh", "n": PAIR_CALLS, **pair["added"], "errors": ""}],
    )
    seen = result["receipt_visibility"]
    print(f"   receipt visible in trace-recorder's view after the answer ({seen['seen']} of {seen['calls']} "
          f"calls seen within 5 s): p50 {seen.get('p50_ms', float('nan')):.1f} ms, "
          f"p95 {seen.get('p95_ms', float('nan')):.1f} ms, p99 {seen.get('p99_ms', float('nan')):.1f} ms")
    topics = sorted({t for r in rounds for t in r["records_per_call"]})
    records = {t: _median(rounds, "records_per_call", t) for t in topics}
    print_table(
        "Kafka records per managed execute_tool, by topic (end offsets before/after, median of rounds)",
        [{"topic": t, "records_per_call": records[t]} for t in topics]
        + [{"topic": "all", "records_per_call": _median(rounds, "records_per_call_total")}],
    )
    kafka_cpu = _median(rounds, "kafka_cpu_ms_per_call")
    kafka_net = _median(rounds, "kafka_cpu_ms_per_call_minus_idle")
    idle = result["idle_cpu_ms_per_s"]
    which = "private (this benchmark's own)" if broker.private else "shared (counts others' traffic too)"
    print(f"   broker: {which}; Kafka CPU per managed call {kafka_cpu:.2f} ms "
          f"({kafka_net:.2f} ms less its idle burn); idle with the mesh up {idle.get('kafka', float('nan')) / 10:.1f}% "
          f"of a core, without the mesh {idle.get('kafka without the mesh', float('nan')) / 10:.1f}%")
    hops = {label: _median([{"v": r["server_ms_by_hop"].get(label, 0.0)} for r in rounds], "v")
            for _, _, _, label in HOPS}
    print_table(
        "Where a managed call's time goes: mean ms inside each server per request (the services' "
        "own bkn_http_request_duration_seconds, median of rounds); the gateway's time less "
        "begin and execute is its own work plus two internal HTTP round trips",
        [{"hop": label, "server_ms": ms} for label, ms in hops.items()]
        + [{"hop": "gateway less begin and execute",
            "server_ms": hops[HOPS[0][3]] - hops[HOPS[1][3]] - hops[HOPS[2][3]]}],
    )
    cpu = {name: _median([{"v": r["cpu_ms_per_pair"].get(name, 0.0)} for r in rounds], "v")
           for name in rounds[0]["cpu_ms_per_pair"]}
    print_table(
        "CPU per managed execute_tool plus one direct call, by process (ms, median of rounds; 2 "
        "cores, so the work after the answer competes with the next call); idle: ms per second "
        "with the mesh up and no calls",
        [{"process": name, "cpu_ms": ms, "idle_ms_per_s": idle.get(name, float("nan"))}
         for name, ms in sorted(cpu.items(), key=lambda kv: -kv[1])]
        + [{"process": "all", "cpu_ms": sum(cpu.values()), "idle_ms_per_s": sum(idle.get(n, 0.0) for n in cpu)}],
    )
    payload = {
        "config": {"n": N, "warmup": WARMUP, "rounds": ROUNDS, "mode": "managed (bkn_context)",
                   "interleaved": True, "broker": "private" if broker.private else "shared",
                   "idle_seconds": IDLE_SECONDS, "pair_calls": PAIR_CALLS,
                   "block_calls": BLOCK_CALLS},
        "execute_tool": gateway,
        "direct": direct,
        "added": added,
        "records_per_call": records,
        "records_per_call_total": _median(rounds, "records_per_call_total"),
        "kafka_cpu_ms_per_call": kafka_cpu,
        "kafka_cpu_ms_per_call_minus_idle": kafka_net,
        "cpu_ms_per_pair": cpu,
        "server_ms_by_hop": hops,
        **result,
    }
    path = write_result("execute_tool", payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
