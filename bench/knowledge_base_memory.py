"""Where knowledge-base's memory goes, stage by stage, in one process (no mesh, seconds).

    python bench/knowledge_base_memory.py
    BENCH_KB_GENERATED_FILES=2000 python bench/knowledge_base_memory.py

The generated folder of ``knowledge_base_folders`` (20,000 files by default) is read and
published as ``clctl kb apply`` would (``load_folder`` + ``apply_events``), folded into the
service's store through the events' wire encoding, then viewed, indexed and given a vector per
chunk (random unit vectors: the encoder's own cost is measured apart, once), with the heap
settled and released as the service does after each build. Then 1 % of the files change and
the next revision is built while the first is still held (a re-apply served during its
rebuild): what that holds at its end. RSS is the process's ``VmRSS`` after each stage; the table shows
the stage's share. Measurements only. Results: bench/results/knowledge_base_memory.json.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from knowledge_base.domain.search import SearchIndex
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.vectors import VectorStore

from bench.harness import ROOT, print_table, write_result
from bench.knowledge_base_folders import generate
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.framework import heap
from clctl.kb import apply_events, load_folder

KB = "bench-memory"
CHUNK_CHARS = 700


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    return round(kib / 1024, 1)


class _RandomUnitEncoder:
    """512 random unit floats per text: the vectors' memory without the encoder's time."""

    name = "random"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.random.default_rng(len(texts)).standard_normal((len(texts), 512)).astype(np.float32)
        unit: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        return unit


def _fold(state: KnowledgeState, folder: Path, previous: Any) -> Any:
    """Fold the apply's events as the service does: from their wire bytes, one at a time (the
    bytes stand for the topic; the events themselves are gone before the first is folded)."""
    loaded = load_folder(folder, 1_048_576)
    log = [encode_event(event) for event in apply_events(KB, "Bench", ["dev"], loaded, previous)]
    del loaded
    gc.collect()
    for position in range(len(log)):
        record = decode_event(log[position])
        log[position] = b""
        state.apply(record)
    return record.event  # the base record, always last


def _index(state: KnowledgeState) -> SearchIndex:
    view = state.view(KB)
    assert view is not None
    index = SearchIndex(view, CHUNK_CHARS)
    heap.settle(unfreeze=True)
    heap.release()
    return index


def _embed(index: SearchIndex, vectors: VectorStore) -> None:
    vectors.want(index.chunk_texts(vectors.lacks))
    while vectors.pending:
        vectors.embed_batch()
    index.refresh_vectors(vectors)
    heap.release()


def _changed_copy(folder: Path, into: Path) -> Path:
    if into.exists():
        shutil.rmtree(into)
    shutil.copytree(folder, into)
    for i, page in enumerate(sorted(into.rglob("note-*.md"))):
        if i % 100 == 0:
            page.write_text(page.read_text() + "\nChanged for the next revision.\n")
    return into


def main() -> dict[str, Any]:
    files = int(os.environ.get("BENCH_KB_GENERATED_FILES", "20000"))
    folder = generate(ROOT / ".run" / f"bench-kb-folder-{files}", files)
    stages: list[tuple[str, float, float]] = [("interpreter and modules", _rss_mib(), 0.0)]

    def stage(name: str, started: float) -> None:
        gc.collect()
        heap.release()  # what is held, not what the allocator kept (the service releases after each build)
        stages.append((name, _rss_mib(), round(time.perf_counter() - started, 1)))

    state = KnowledgeState()
    started = time.perf_counter()
    applied = _fold(state, folder, None)
    stage("store: the contents received", started)
    started = time.perf_counter()
    state.view(KB)
    stage("view: files parsed, relations, navigation", started)
    vectors = VectorStore(_RandomUnitEncoder, "random", batch=256)
    started = time.perf_counter()
    first = _index(state)
    chunks = len(first.chunks)
    stage("search index: BM25, titles, chunk keys", started)
    started = time.perf_counter()
    _embed(first, vectors)
    stage(f"a vector per chunk ({chunks} chunks of 512 floats)", started)
    changed = _changed_copy(folder, ROOT / ".run" / f"bench-kb-memory-next-{files}")
    started = time.perf_counter()
    _fold(state, changed, applied)
    second = _index(state)
    _embed(second, vectors)
    stage("next revision built while the first is held", started)
    del first
    vectors.keep_only({c.key for c in second.chunks})
    started = time.perf_counter()
    heap.settle(unfreeze=True)
    heap.release()
    stage("after the first revision is dropped", started)
    encoder_mib = None
    try:
        from knowledge_base.adapters.embedder import PackagedEncoder

        before = _rss_mib()
        PackagedEncoder()
        encoder_mib = round(_rss_mib() - before, 1)
    except Exception as exc:  # the encoder is optional here
        print(f"encoder not measured: {exc}")
    rows = [{"stage": name, "RSS MiB": rss, "added MiB": round(rss - stages[i - 1][1], 1) if i else rss,
             "seconds": seconds} for i, (name, rss, seconds) in enumerate(stages)]
    rows.append({"stage": "the encoder, once per process", "RSS MiB": "", "added MiB": encoder_mib, "seconds": ""})
    print_table(f"knowledge-base memory in process, generated folder of {files} files", rows)
    payload = {"files": files, "chunks": chunks, "stages": rows, "encoder_mib": encoder_mib}
    write_result("knowledge_base_memory", payload)
    shutil.rmtree(changed, ignore_errors=True)
    return payload


if __name__ == "__main__":
    main()
