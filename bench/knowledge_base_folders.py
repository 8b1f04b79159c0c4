"""knowledge-base on folders as people have them: a real documentation folder and a generated one.

    python bench/knowledge_base_folders.py
    BENCH_KB_FOLDERS=real python bench/knowledge_base_folders.py       # one of real, generated
    BENCH_KB_GENERATED_FILES=20000                                      # size of the generated one

``real``: the documentation that 22 packages ship (``bench/kb_eval/real_corpus.py --size large``,
~1,360 Markdown files and ~320 other files, applied as they are, warnings and all). ``generated``:
20,000 Markdown files in 200 folders written the way people do (a third without frontmatter, a
README per folder, wikilinks, extensionless and root-relative links, images, a few dangling
links). Per folder, on a private mesh with content vectors on: ``clctl kb apply`` time, seconds
until a search answers and until ``semanticStatus`` is ``ready``, the knowledge-base process's RSS
then, ``search_files`` (hybrid) p50/p99 at c=1 and c=8 through the gateway, and a second apply of
the unchanged folder (file events published, whether the revision moved, whether search stays
``ready``: nothing embedded again). Measurements only. Results: bench/results/knowledge_base_folders.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import ROOT, bench_mesh, latency_summary, print_table, service_rss_mb, write_result
from bench.knowledge_base_search import WORDS, ZH

KB = "bench-folder"
FOLDERS = 200
SEARCHES_C1, SEARCHES_C8 = 100, 400


def generate(root: Path, files: int) -> Path:
    """A folder as a team keeps one: no root index, READMEs, mixed link habits, assets."""
    rng = random.Random(5)
    marker = root / f".generated-{files}"
    if marker.exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    per = max(1, files // FOLDERS)
    for f in range(FOLDERS):
        folder = root / f"area-{f:03d}"
        folder.mkdir(exist_ok=True)
        (folder / "README.md").write_text(f"# Area {f}\n\n" + "".join(
            f"- [[note-{i:05d}]]\n" for i in range(f * per, min(files, (f + 1) * per), max(1, per // 10))))
        (folder / "diagram.png").write_bytes(b"\x89PNG")
    for i in range(files - FOLDERS):
        f = i % FOLDERS
        words = rng.sample(WORDS, 3)
        body = " ".join(" ".join(rng.choices(WORDS, k=12)).capitalize() + "." for _ in range(6))
        body += " " + "".join(rng.choices(ZH, k=8)) + "。\n\n"
        other = rng.randrange(files - FOLDERS)
        body += rng.choice([f"See [[note-{other:05d}]].", f"See [next](/area-{other % FOLDERS:03d}/note-{other:05d}).",
                            f"See [next](../area-{other % FOLDERS:03d}/note-{other:05d}.md#top).",
                            "![diagram](diagram.png)", "See [gone](missing-page.md)."]) + "\n"
        head = f"# {' '.join(words).title()} {i}\n\n"
        if i % 3:
            head = (f"---\ntitle: {' '.join(words).title()} {i}\ntags: [{', '.join(rng.sample(WORDS, 2))}]\n"
                    f"aliases: [n{i}]\n---\n") + head
        (root / f"area-{f:03d}" / f"note-{i:05d}.md").write_text(head + body)
    marker.write_text("")
    return root


    return None


async def _searches(gateway: str, key: str, paths: list[str], concurrency: int) -> tuple[list[float], float, int]:
    import httpx

    samples: list[float] = []
    errors = 0
    queue = list(paths)
    async with httpx.AsyncClient(base_url=gateway, timeout=60, headers={"Authorization": f"Bearer {key}"}) as client:
        async def worker() -> None:
            nonlocal errors
            while queue:
                path = queue.pop()
                started = time.perf_counter()
                response = await client.get(path)
                samples.append((time.perf_counter() - started) * 1000)
                errors += response.status_code != 200
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return samples, time.perf_counter() - started, errors


def _apply(layout: Any, folder: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "clctl"), "kb", "apply", "--kb", KB, "--reader", "dev",
                           str(folder)], env=layout.env(), check=True, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout


def _state(response: Any) -> str:
    return str(response.json().get("semanticStatus", {}).get("state")) if response.status_code == 200 else "error"


def measure(name: str, folder: Path, queries: list[str]) -> dict[str, Any]:
    import httpx

    env = {"KNOWLEDGE_BASE_RATE_LIMIT_PER_SECOND": "1000000", "KNOWLEDGE_BASE_RATE_LIMIT_BURST": "1000000",
           "KNOWLEDGE_BASE_SEARCH_DEADLINE_SECONDS": "30"}
    bound = float(os.environ.get("BENCH_KB_VECTORS_WAIT_SECONDS", "1800"))
    with bench_mesh(f"kbf-{name}", extra_env=env, bundles=()) as (layout, key, _keys):
        base = f"/openapi/v2/knowledge-bases/{KB}"
        started = time.perf_counter()
        apply_s, report = _apply(layout, folder)
        probe = queries[0]
        auth = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=layout.gateway_url, timeout=120, headers=auth) as client:
            while (response := client.get(f"{base}/files/search", params={"query": probe})).status_code != 200:
                time.sleep(0.2)
            searchable = time.perf_counter() - started
            while _state(response := client.get(f"{base}/files/search", params={"query": probe})) != "ready":
                if time.perf_counter() - started > bound:
                    raise SystemExit(f"{name}: vectors not ready after {bound:.0f} s")
                time.sleep(1)
            ready = time.perf_counter() - started
            revision = response.json()["activeContentRevision"]
            rss = service_rss_mb(layout, "knowledge-base")
        rng = random.Random(3)
        paths = [f"{base}/files/search?query={quote(rng.choice(queries))}" for _ in range(SEARCHES_C1 + SEARCHES_C8)]
        one, one_wall, one_errors = asyncio.run(_searches(layout.gateway_url, key, paths[:SEARCHES_C1], 1))
        eight, eight_wall, eight_errors = asyncio.run(_searches(layout.gateway_url, key, paths[SEARCHES_C1:], 8))
        again_s, again = _apply(layout, folder)
        with httpx.Client(base_url=layout.gateway_url, timeout=120, headers=auth) as client:
            time.sleep(2)
            after = client.get(f"{base}/files/search", params={"query": probe})
    events = re.search(r"(\d+) file events", again)
    summary = next((line for line in report.splitlines() if " files published" in line), "")
    return {
        "folder": name, "markdown_files": int(summary.split()[0]) if summary else None, "apply_report": summary,
        "apply_s": round(apply_s, 1), "searchable_s": round(searchable, 1), "vectors_ready_s": round(ready, 1),
        "rss_mb": rss, "search_c1": latency_summary(one, one_wall), "search_c8": latency_summary(eight, eight_wall),
        "search_errors": one_errors + eight_errors,
        "reapply": {"seconds": round(again_s, 1), "file_events": int(events.group(1)) if events else None,
                    "revision_before": revision, "revision_after": after.json().get("activeContentRevision"),
                    "status_after": after.status_code, "semantic_state_after": _state(after)},
    }


def main() -> dict[str, Any]:
    wanted = os.environ.get("BENCH_KB_FOLDERS", "real,generated").split(",")
    results = []
    if "real" in wanted:
        from bench.kb_eval.real_corpus import LARGE_DIR, fetch
        questions = [json.loads(line)["query"] for line in
                     (ROOT / "bench" / "kb_eval" / "real_questions.jsonl").read_text(encoding="utf-8").splitlines()
                     if line.strip()]
        results.append(measure("real", fetch(LARGE_DIR, "large"), questions))
    if "generated" in wanted:
        files = int(os.environ.get("BENCH_KB_GENERATED_FILES", "20000"))
        rng = random.Random(9)
        queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(200)] + \
                  ["".join(rng.sample(ZH, 2)) + "的流程是什么" for _ in range(100)]
        results.append(measure("generated", generate(ROOT / ".run" / f"bench-kb-folder-{files}", files), queries))
    rows = [{"folder": r["folder"], "md files": r["markdown_files"], "apply s": r["apply_s"],
             "searchable s": r["searchable_s"], "ready s": r["vectors_ready_s"], "RSS MiB": r["rss_mb"],
             "c=1 p50/p99 ms": f"{r['search_c1']['p50_ms']:.1f}/{r['search_c1']['p99_ms']:.1f}",
             "c=8 p50/p99 ms": f"{r['search_c8']['p50_ms']:.1f}/{r['search_c8']['p99_ms']:.1f}",
             "re-apply events": r["reapply"]["file_events"]} for r in results]
    print_table("knowledge-base on folders as people have them (vectors on)", rows)
    for r in results:
        print(f"{r['folder']}: {r['apply_report']}")
    payload = {"folders": results}
    write_result("knowledge_base_folders", payload)
    return payload


if __name__ == "__main__":
    main()
