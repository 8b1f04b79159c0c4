"""Evaluate capability ranking on the labeled set: nDCG@10 and Recall@5 by language.

    PYTHONPATH=services/capability-index/src python bench/capability_eval/evaluate.py \
        [--out bench/results/capability_eval.json]

nDCG@10 uses graded gains 2^rel - 1 with a log2(rank + 1) discount; the ideal DCG is
computed from all labels of the query.  Recall@5 is the fraction of items with grade >= 2
found in the top 5 (queries without such items are skipped).  Besides the default
configuration, the lexical-only ablation (glossary expansion off) is reported too.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_OUT = REPO / "bench" / "results" / "capability_eval.json"

try:
    from capability_index.domain.ranking import CapabilityDoc, LexicalIndex
except ImportError:  # running from a checkout without PYTHONPATH
    sys.path.insert(0, str(REPO / "services" / "capability-index" / "src"))
    from capability_index.domain.ranking import CapabilityDoc, LexicalIndex

K_NDCG = 10
K_RECALL = 5


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def to_doc(rec: Mapping[str, Any]) -> CapabilityDoc:
    return CapabilityDoc(
        capability_id=rec["capability_id"],
        capability_type=rec["capability_type"],
        name=rec["name"],
        description=rec.get("description", ""),
        use_rule=rec.get("use_rule", ""),
        param_names=tuple(rec.get("param_names", ())),
    )


def ndcg_at_k(ranked: Sequence[str], labels: Mapping[str, int], k: int = K_NDCG) -> float:
    dcg = sum((2 ** labels.get(cid, 0) - 1) / math.log2(i + 2) for i, cid in enumerate(ranked[:k]))
    ideal = sorted(labels.values(), reverse=True)[:k]
    idcg = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(
    ranked: Sequence[str], labels: Mapping[str, int], k: int = K_RECALL
) -> float | None:
    relevant = {cid for cid, g in labels.items() if g >= 2}
    if not relevant:
        return None
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def evaluate_index(index: LexicalIndex, queries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per_query: list[dict[str, Any]] = []
    latencies: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        hits = index.search(q["query"], limit=K_NDCG)
        latencies.append((time.perf_counter() - t0) * 1000.0)
        ranked = [cid for cid, _ in hits]
        labels: dict[str, int] = q["relevance"]
        per_query.append(
            {
                "query_id": q["query_id"],
                "lang": q["lang"],
                "split": q.get("split", ""),
                "ndcg@10": ndcg_at_k(ranked, labels),
                "recall@5": recall_at_k(ranked, labels),
                "top": ranked[:5],
            }
        )
    groups: dict[str, list[dict[str, Any]]] = {"overall": per_query}
    for row in per_query:
        groups.setdefault(row["lang"], []).append(row)
        if row["split"]:
            groups.setdefault(f"split:{row['split']}", []).append(row)
    summary: dict[str, dict[str, float]] = {}
    for name, rows in groups.items():
        recalls = [r["recall@5"] for r in rows if r["recall@5"] is not None]
        summary[name] = {
            "queries": len(rows),
            "ndcg@10": _mean([r["ndcg@10"] for r in rows]),
            "recall@5": _mean(recalls),
        }
    lat = sorted(latencies)
    return {
        "summary": summary,
        "latency_ms": {
            "median": lat[len(lat) // 2],
            "p95": lat[int(len(lat) * 0.95)],
            "max": lat[-1],
        },
        "per_query": per_query,
    }


def run(out_path: str | Path | None = None) -> dict[str, Any]:
    caps = load_jsonl(HERE / "capabilities.jsonl")
    queries = load_jsonl(HERE / "queries.jsonl")
    configs: dict[str, LexicalIndex] = {
        "lexical+glossary": LexicalIndex(),
        "lexical_only": LexicalIndex(synonyms=False),
    }
    results: dict[str, Any] = {"capabilities": len(caps), "queries": len(queries), "configs": {}}
    for name, index in configs.items():
        for rec in caps:
            index.upsert(to_doc(rec))
        index.search("warm up 预热", limit=1)
        results["configs"][name] = evaluate_index(index, queries)
    results["default"] = "lexical+glossary"
    out = Path(out_path) if out_path is not None else DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    return results


def format_table(results: Mapping[str, Any]) -> str:
    lines = [f"{'config':<18} {'group':<11} {'n':>4} {'nDCG@10':>8} {'R@5':>7}"]
    for cname, res in results["configs"].items():
        for group, m in res["summary"].items():
            n, ndcg, rec = m["queries"], m["ndcg@10"], m["recall@5"]
            lines.append(f"{cname:<18} {group:<11} {n:>4} {ndcg:>8.4f} {rec:>7.4f}")
        lat = res["latency_ms"]
        med, p95, mx = lat["median"], lat["p95"], lat["max"]
        lines.append(f"{cname:<18} latency ms: median {med:.3f}  p95 {p95:.3f}  max {mx:.3f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """CLI entry point (also called without arguments by ``bench/run_all.py``)."""
    parser = argparse.ArgumentParser(description="nDCG@10 / Recall@5 of capability ranking")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="where to write the JSON results")
    if argv is None:
        argv = sys.argv[1:] if __name__ == "__main__" else []
    args = parser.parse_args(argv)
    results = run(args.out)
    print(format_table(results))
    print(f"written: {args.out}")
    return results


if __name__ == "__main__":
    main()
