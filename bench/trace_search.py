"""The operator read API's searches on trace-recorder's SQLite view (in process, no mesh).

    python bench/run_all.py trace_search

Folds ``TURNS`` turns (20 accounts, two tools, two knowledge networks, one turn in ten failed)
into a fresh SQLite view, then times ``search_interactions`` (one page of 50, newest first)
per filter, and a page 5,000 interactions deep through the cursor. Measurements only.
Results: bench/results/trace_search.json.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import latency_summary, print_table, write_result
from bkn_common.contracts import events as ev
from tests.support.trace_view_contract import Turns, wire
from trace_recorder.adapters.sqlite_view import sqlite_view
from trace_recorder.service_layer.search import TraceQuery, interaction_position

TURNS = 10_000
RUNS = 7


def _turns(count: int) -> list[ev.Event]:
    events: list[ev.Event] = []
    for n in range(count):
        tool = "execute_tool" if n % 3 else "search_capabilities"
        events += [Turns.start(n, account=f"acct{n % 20}"), Turns.op(n, 0, tool_name=tool),
                   Turns.op(n, 0, "completed", tool_name=tool, result={}),
                   Turns.receipt(n, 0).model_copy(update={"kn_id": "kn" if n % 2 else "other"}),
                   Turns.finish(n, "completed" if n % 10 else "failed")]
    return events


def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="trace-search-") as folder:
        view = sqlite_view(Path(folder) / "view.sqlite3")
        started = time.perf_counter()
        asyncio.run(view.apply_batch(wire(_turns(TURNS)), {}))
        fold_s = time.perf_counter() - started
        deep = interaction_position(view.search_interactions(TraceQuery(limit=5000))[-1])
        queries = {"newest": TraceQuery(), "account": TraceQuery(account="acct3"),
                   "tool": TraceQuery(tool="search_capabilities"), "kn_id": TraceQuery(kn_id="other"),
                   "outcome": TraceQuery(outcome="failed"), "cursor_5000_deep": TraceQuery(after=deep)}
        rows = []
        for name, query in queries.items():
            samples = []
            for _ in range(RUNS):
                began = time.perf_counter()
                view.search_interactions(query)
                samples.append((time.perf_counter() - began) * 1000)
            rows.append({"filter": name, **{k: v for k, v in latency_summary(samples).items()
                                            if k in ("p50_ms", "p90_ms")}})
        view.close()
    print_table(f"search_interactions on SQLite, {TURNS:,} turns (fold {fold_s:.1f} s)", rows)
    payload = {"turns": TURNS, "fold_s": fold_s, "searches": rows}
    write_result("trace_search", payload)
    return payload


if __name__ == "__main__":
    main()
