"""Views that restart in seconds: checkpointed restarts against restarts from offset zero.

    python bench/run_all.py views

A private mesh (no demo bundles, checkpoints in its run folder) gets, on fresh topics:

* capability-index: 10,000 capabilities (100 toolboxes of 100 tools written after the labelled
  catalogue in ``bench/capability_eval``, so tokenizing is as costly as for real text), bound
  on 200 networks, plus 100,000 mounts, unmounts and tool enablement changes (the history
  size of ``bench/materialize_capabilities.py``);
* ontology-query: the network of ``bench/ontology_queries.py`` (200,000 objects, about
  1,000,000 relation instances).

For each service: with its checkpoint deleted, start it and time until ``/readyz`` is green
(``restart_zero_s``: the replay from offset zero); then stop it with SIGTERM (it writes its
checkpoint), start it again and time until green, three times (``restart_checkpoint_s``: their
median; ``restart_checkpoint_runs``: each). ``rss_mb`` is the process's resident memory after
the checkpointed restarts. The ``trace_recorder`` part comes from
``bench.views_trace_recorder.measure()``.

``BENCH_VIEWS_PARTS=capability_index`` (a comma-separated subset of ``capability_index``,
``ontology_query``, ``trace_recorder``; all by default) measures only those parts, e.g. to
iterate on one service's start in seconds instead of minutes; those results go to
``bench/results/views-<parts>.json`` (``views.json`` stays the whole run's).

Measurements only, nothing asserted. Results: bench/results/views.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Iterator
from itertools import chain
from typing import Any

from bench import views_trace_recorder
from bench.harness import ROOT, bench_mesh, print_table, service_rss_mb, write_result
from bench.ontology_queries import instance_events, publish_bulk, schema_events
from bkn_common.contracts import events as ev

TEMPLATES = ROOT / "bench" / "capability_eval" / "capabilities.jsonl"
BOXES, TOOLS_PER_BOX, NETWORKS, PER_NETWORK, CHURN = 100, 100, 200, 500, 100_000
PARTS = ("capability_index", "ontology_query", "trace_recorder")
CHECKPOINTED_RUNS = 3  # checkpointed restarts per service (a second or less each: noisy)


def capability_events(seed: int = 11) -> Iterator[ev.Event]:
    """10,000 tools with realistic text, their lifecycle, bindings and churn."""
    rng = random.Random(seed)
    templates = [json.loads(line) for line in TEMPLATES.read_text(encoding="utf-8").splitlines()]
    refs: list[ev.CapabilityRef] = []
    for b in range(BOXES):
        tools = []
        for k in range(TOOLS_PER_BOX):
            t = templates[(b * TOOLS_PER_BOX + k) % len(templates)]
            properties = {name: {"type": "string"} for name in t["param_names"]}
            tools.append(ev.ToolSpec(
                id=f"v{b:03d}_{k:03d}", name=f"{t['name']}_{b}", description=f"{t['description']} (site {b})",
                use_rule=t["use_rule"], input_schema={"type": "object", "properties": properties},
                function=ev.FunctionCode(source="def handler(a):\n    return a\n"),
            ))
            refs.append(ev.CapabilityRef(capability_type="function", capability_id=f"v{b:03d}_{k:03d}",
                                         owner_id=f"vb{b:03d}"))
        yield ev.ToolboxUpserted(id=f"vb{b:03d}", name=f"views box {b}", kind="function", tools=tuple(tools))
        yield ev.OwnerStateChanged(owner_kind="toolbox", owner_id=f"vb{b:03d}", state="published")
    for ref in refs:
        yield ev.ToolStateChanged(owner_id=ref.owner_id or "", tool_id=ref.capability_id, enabled=True)
    networks = [f"vk{i:03d}" for i in range(NETWORKS)]
    for kn in networks:
        yield ev.BindingsReplaced(kn_id=kn, capabilities=tuple(rng.sample(refs, PER_NETWORK)))
        yield ev.ProxySyncChanged(kn_id=kn, proxy_id=f"proxy-{kn}", synced=True)
    for _ in range(CHURN):
        ref, kn, roll = rng.choice(refs), rng.choice(networks), rng.random()
        if roll < 0.4:
            yield ev.BindingMounted(kn_id=kn, capability=ref)
        elif roll < 0.6:
            yield ev.BindingUnmounted(kn_id=kn, capability=ref)
        else:
            yield ev.ToolStateChanged(owner_id=ref.owner_id or "", tool_id=ref.capability_id,
                                      enabled=rng.random() < 0.9)


    return None


def _restarts(layout: Any, name: str) -> dict[str, Any]:
    """From zero (checkpoint deleted), then a clean stop and a checkpointed start."""
    import devmesh

    process = next(p for p in layout.services() if p.name == name)
    checkpoint = layout.checkpoint_dir / f"{name}.ckpt"
    devmesh.stop_processes(layout, [name])
    checkpoint.unlink(missing_ok=True)
    began = time.perf_counter()
    devmesh.start_process(layout, process)
    devmesh.wait_healthy(layout, [process], timeout=1800)
    zero_s = time.perf_counter() - began
    rss_zero = service_rss_mb(layout, name)
    runs = [devmesh.restart_process(layout, name, timeout=1800) for _ in range(CHECKPOINTED_RUNS)]
    ready_s = statistics.median(took.ready_s for took in runs)
    return {
        "restart_checkpoint_s": round(ready_s, 3),
        "restart_checkpoint_runs": [round(took.ready_s, 3) for took in runs],
        "restart_zero_s": round(zero_s, 3),
        "rss_mb": service_rss_mb(layout, name),
        "rss_zero_mb": rss_zero,
        "speedup": round(zero_s / ready_s, 1) if ready_s else None,
        "stop_with_checkpoint_s": round(runs[0].stopped_s, 3),
        "checkpoint_bytes": checkpoint.stat().st_size if checkpoint.exists() else None,
    }


def _parts() -> set[str]:
    """The parts ``BENCH_VIEWS_PARTS`` names (all when unset)."""
    named = {p.strip() for p in os.environ.get("BENCH_VIEWS_PARTS", "").split(",") if p.strip()}
    unknown = named - set(PARTS)
    if unknown:
        raise ValueError(f"BENCH_VIEWS_PARTS: unknown {sorted(unknown)}; one of {', '.join(PARTS)}")
    return named or set(PARTS)


def main() -> dict[str, Any]:
    import devmesh

    parts = _parts()
    result: dict[str, Any] = {}
    counts: dict[str, int] = {}
    publish_s = 0.0
    if parts & {"capability_index", "ontology_query"}:
        with bench_mesh("views", bundles=()) as (layout, _key, _keys):
            for name in ("capability-index", "tool-executor", "ontology-query"):
                devmesh.stop_processes(layout, [name])  # the broker has the machine while publishing
            began = time.perf_counter()
            if "capability_index" in parts:
                counts["capability_index"] = asyncio.run(
                    publish_bulk(layout.kafka, layout.topic_prefix, capability_events()))
            if "ontology_query" in parts:
                counts["ontology_query"] = asyncio.run(publish_bulk(
                    layout.kafka, layout.topic_prefix,
                    chain(schema_events(), instance_events(random.Random(7)))))
            publish_s = time.perf_counter() - began
            # tool-executor folds the same catalogue: let it catch up first, so its replay does
            # not share the two cores with the restarts being timed
            executor = next(p for p in layout.services() if p.name == "tool-executor")
            devmesh.start_process(layout, executor)
            devmesh.wait_healthy(layout, [executor], timeout=1800)
            if "capability_index" in parts:
                result["capability_index"] = _restarts(layout, "capability-index")
            if "ontology_query" in parts:
                result["ontology_query"] = _restarts(layout, "ontology-query")
    payload: dict[str, Any] = {
        "events": sum(counts.values()),
        "events_by_part": counts,
        "publish_s": round(publish_s, 1),
    }
    if "trace_recorder" in parts:
        payload["trace_recorder"] = views_trace_recorder.measure()
    payload.update(result)
    rows = [
        {"store": name, **{k: v for k, v in part.items()
                           if k not in ("rss_zero_mb", "restart_checkpoint_runs")}}
        for name, part in result.items()
    ]
    print_table("checkpointed restart vs replay from offset zero (seconds to /readyz green)", rows)
    name = "views" if parts == set(PARTS) else "views-" + "+".join(sorted(parts))
    path = write_result(name, payload)
    print(f"   → {path}")
    return payload


if __name__ == "__main__":
    main()
