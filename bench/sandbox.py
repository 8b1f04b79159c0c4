"""Per-call cost of tool-executor's sandbox: bubblewrap (the default) vs a plain child process.

    python bench/sandbox.py

Each sandbox adapter runs the same trivial function tool (``handler(a) -> a["n"] * 2``) and
the same one-file Python skill N=60 times, sequentially, the adapters interleaved so both see
the same machine load. ``process`` is the old Python-level sandbox (a child interpreter with
rlimits, as before issue 14); ``bwrap`` adds the namespaces, the read-only view, the scratch
tmpfs, the uid switch and the seccomp filter; ``bwrap-no-seccomp`` is the same without the
filter (TOOL_EXECUTOR_SANDBOX_SECCOMP=false), so the filter's own cost is a pair measured side
by side. Reports p50/p90 of each and the added p50s.

Measurements only, nothing asserted. Results: bench/results/sandbox.json.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import latency_summary, print_table, write_result

N = 60
WARMUP = 3
SOURCE = "def handler(a):\n    return {'n': a['n'] * 2}\n"
SKILL = {"main.py": "import sys\nprint('hello', *sys.argv[1:])\n"}


async def _measure() -> dict[str, dict[str, list[float]]]:
    from tool_executor.adapters.bwrap_sandbox import BwrapSandbox
    from tool_executor.adapters.sandbox import ProcessSandbox
    from tool_executor.domain.sandbox import SandboxLimits

    bwrap, unfiltered = BwrapSandbox(), BwrapSandbox(seccomp=False)
    bwrap.check()
    unfiltered.check()
    adapters: dict[str, Any] = {"process": ProcessSandbox(), "bwrap": bwrap,
                                "bwrap-no-seccomp": unfiltered}
    limits = SandboxLimits()
    samples: dict[str, dict[str, list[float]]] = {
        kind: {name: [] for name in adapters} for kind in ("function", "skill")
    }
    for i in range(WARMUP + N):
        for name, sandbox in adapters.items():
            started = time.perf_counter()
            result = await sandbox.run_function(SOURCE, "handler", {"n": i}, limits)
            function_ms = (time.perf_counter() - started) * 1000
            assert result.exit_code == 0, result.stderr
            started = time.perf_counter()
            done = await sandbox.run_skill(SKILL, "python main.py", ["x"], limits)
            skill_ms = (time.perf_counter() - started) * 1000
            assert done.exit_code == 0, done.stderr
            if i >= WARMUP:
                samples["function"][name].append(function_ms)
                samples["skill"][name].append(skill_ms)
    return samples


def main() -> dict[str, Any]:
    samples = asyncio.run(_measure())
    payload: dict[str, Any] = {"n": N}
    rows = []
    for kind, by_adapter in samples.items():
        summaries = {name: latency_summary(values) for name, values in by_adapter.items()}
        payload[kind] = summaries
        for name, summary in summaries.items():
            rows.append({"call": kind, "sandbox": name, "p50_ms": summary["p50_ms"],
                         "p90_ms": summary["p90_ms"], "mean_ms": summary["mean_ms"]})
        for label, minus in (("bwrap - process", "process"), ("seccomp: bwrap - bwrap-no-seccomp",
                                                              "bwrap-no-seccomp")):
            added = summaries["bwrap"]["p50_ms"] - summaries[minus]["p50_ms"]
            key = "bwrap_added_p50_ms" if minus == "process" else "seccomp_added_p50_ms"
            payload[kind][key] = added
            rows.append({"call": kind, "sandbox": label, "p50_ms": added,
                         "p90_ms": float("nan"), "mean_ms": float("nan")})
    print_table(f"sandbox: per-call latency, N={N} each, sequential", rows)
    path = write_result("sandbox", payload)
    print(f"wrote {path}")
    return payload


if __name__ == "__main__":
    main()
