"""``make bench``: run every benchmark module in turn (each prints its table and writes JSON).

    python bench/run_all.py [name ...]     # a subset by module name (views, kb_eval.evaluate, ...)
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Module names under bench/ that expose ``main() -> dict``; order: cheap first.
BENCHMARKS = [
    "bench.capability_eval.evaluate",
    "bench.kb_eval.evaluate",
    "bench.materialize_capabilities",
    "bench.search_capabilities",
    "bench.sandbox",
    "bench.provenance_signing",
    "bench.execute_tool",
    "bench.kafka_record_cost",
    "bench.mcp_vs_rest",
    "bench.trace_overhead",
    "bench.trace_ingest",
    "bench.trace_search",
    "bench.ontology_queries",
    "bench.views",
    "bench.toon_size",
    "bench.knowledge_base_search",
    "bench.knowledge_base_folders",
    "bench.knowledge_base_memory",
    "bench.run_sql",
]


def main() -> int:
    sys.path.insert(0, str(ROOT / "scripts"))
    import devmesh

    started_infra = not devmesh.infra_running()
    devmesh.infra("start")
    try:
        return _run(set(sys.argv[1:]))
    finally:
        if started_infra:  # leave infrastructure it found running
            devmesh.infra("stop")


def _run(wanted: set[str]) -> int:
    failed = []
    for module_name in BENCHMARKS:
        short = module_name.rsplit(".", 1)[-1]  # "evaluate" names both evaluations
        if wanted and not wanted & {short, module_name, module_name.removeprefix("bench.")}:
            continue
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            print(f"\n## {short}: not available ({exc.name})")
            continue
        started = time.perf_counter()
        try:
            module.main()
        except Exception as exc:  # one failing benchmark must not hide the others
            print(f"\n## {short}: FAILED: {type(exc).__name__}: {exc}")
            failed.append(short)
        print(f"   ({short}: {time.perf_counter() - started:.1f}s)")
    if failed:
        print(f"\nfailed benchmarks: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
