"""Shared benchmark helpers: latency statistics, tables, JSON results, a private mesh.

Benchmarks are measurements, never tests: they print medians and ratios from one run and
assert nothing about speed.
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))


def percentile(samples: Sequence[float], q: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def latency_summary(samples_ms: Sequence[float], wall_seconds: float | None = None) -> dict[str, float]:
    out = {
        "n": float(len(samples_ms)),
        "p50_ms": statistics.median(samples_ms),
        "p90_ms": percentile(samples_ms, 90),
        "p99_ms": percentile(samples_ms, 99),
        "mean_ms": statistics.fmean(samples_ms),
    }
    if wall_seconds:
        out["req_per_s"] = len(samples_ms) / wall_seconds
    return out


def print_table(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n## {title}")
    if not rows:
        print("(no rows)")
        return
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(_fmt(r.get(c))) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns))
    print("  ".join("-" * widths[c] for c in columns))
    for row in rows:
        print("  ".join(_fmt(row.get(c)).ljust(widths[c]) for c in columns))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value)


def write_result(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    document = {
        "benchmark": name,
        "measured_at": datetime.now(UTC).isoformat(),
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
        **payload,
    }
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


@contextmanager
def timed() -> Iterator[list[float]]:
    box: list[float] = []
    start = time.perf_counter()
    try:
        yield box
    finally:
        box.append(time.perf_counter() - start)


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (None once it is gone)."""
    import os

    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _infra_pids() -> dict[str, int]:
    """The local Kafka broker and Redis, found by their command lines."""
    import os

    found: dict[str, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
        except OSError:
            continue
        if argv[0].endswith(b"java") and b"kafka.Kafka" in argv:
            found["kafka"] = int(entry)
        elif argv[0].startswith(b"redis-server"):
            found["redis"] = int(entry)
    return found


def mesh_processes(layout: Any) -> dict[str, int]:
    """Process ids of a bench mesh's services, the broker, Redis and this client."""
    import os

    pids = {f.stem: int(f.read_text()) for f in sorted((layout.run_dir / "pids").glob("*.pid"))}
    return {**pids, **_infra_pids(), "bench client": os.getpid()}


def cpu_snapshot(processes: dict[str, int]) -> dict[str, float]:
    return {name: t for name, pid in processes.items() if (t := _cpu_seconds(pid)) is not None}


def cpu_per_request(before: dict[str, float], after: dict[str, float], requests: int) -> dict[str, float]:
    """CPU milliseconds each process spent per request between two snapshots (the clock
    tick is 10 ms, so use a few thousand requests)."""
    return {name: (after[name] - before[name]) * 1000 / requests for name in after if name in before}


def topic_end_offsets(layout: Any) -> dict[str, int]:
    """Records ever written to each of the mesh's topics (end offsets summed over partitions;
    dead-letter topics included), by catalogue name without the mesh's prefix."""
    import asyncio

    from aiokafka import AIOKafkaConsumer, TopicPartition

    from bkn_common.contracts.topics import ALL_TOPICS
    from bkn_common.infra.kafka import topic_partitions

    async def read() -> dict[str, int]:
        names = {t.full_name(layout.topic_prefix): t.name for t in ALL_TOPICS}
        parts = await topic_partitions(layout.kafka, list(names))
        consumer = AIOKafkaConsumer(bootstrap_servers=layout.kafka)
        await consumer.start()
        try:
            ends = await consumer.end_offsets([TopicPartition(t, p) for t, ps in parts.items() for p in ps])
        finally:
            await consumer.stop()
        totals = dict.fromkeys(names.values(), 0)
        for tp, offset in ends.items():
            totals[names[tp.topic]] += offset
        return totals

    return asyncio.run(read())


def records_per_call(before: dict[str, int], after: dict[str, int], calls: int) -> dict[str, float]:
    """Records each call added, by topic (topics it did not write are left out)."""
    return {topic: (after[topic] - before.get(topic, 0)) / calls
            for topic in sorted(after) if after[topic] != before.get(topic, 0)}


def settled_end_offsets(layout: Any, quiet_seconds: float = 1.5, limit_seconds: float = 30.0) -> dict[str, int]:
    """End offsets once nothing was written for ``quiet_seconds`` (span batches, records
    published after the answer), or after ``limit_seconds``."""
    deadline = time.monotonic() + limit_seconds
    last = topic_end_offsets(layout)
    while time.monotonic() < deadline:
        time.sleep(quiet_seconds)
        now = topic_end_offsets(layout)
        if now == last:
            break
        last = now
    return last


@dataclass(frozen=True)
class Broker:
    bootstrap: str
    pid: int | None
    private: bool


@contextmanager
def private_kafka(name: str) -> Iterator[Broker]:
    """A Kafka broker of this benchmark's own (``scripts/kafka.sh`` on two ports of a free
    block, data in ``.run/bench-<name>-kafka``), so its CPU counts this benchmark only."""
    import os
    import shutil
    import subprocess

    import devmesh

    base = devmesh.free_port_block()
    run_dir = ROOT / ".run" / f"bench-{name}-kafka"
    shutil.rmtree(run_dir, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if k not in ("KAFKA_BOOTSTRAP_SERVERS", "REDIS_URL")}
    env.update(KAFKA_PORT=str(base), KAFKA_CONTROLLER_PORT=str(base + 1), KAFKA_RUN_DIR=str(run_dir),
               KAFKA_START_TIMEOUT="240")

    def script(action: str) -> None:
        subprocess.run([str(ROOT / "scripts" / "kafka.sh"), action], env=env, check=True,
                       stdout=subprocess.DEVNULL)

    script("start")
    try:
        yield Broker(f"127.0.0.1:{base}", int((run_dir / "kafka.pid").read_text()), private=True)
    finally:
        script("stop")


def shared_broker() -> Broker:
    """The local broker every engineer shares (its CPU also counts their traffic)."""
    import os

    return Broker(os.environ.get("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092"),
                  _infra_pids().get("kafka"), private=False)


@contextmanager
def bench_mesh(name: str, extra_env: dict[str, str] | None = None,
               bundles: Sequence[str] | None = None, kafka: str | None = None) -> Iterator[Any]:
    """A private copy of the mesh (own free port block, topics and run folder) on the local
    infra, or on the broker ``kafka`` (e.g. a :func:`private_kafka`)."""
    import uuid

    import devmesh

    devmesh.infra("start")
    layout = devmesh.MeshLayout(
        run_dir=ROOT / ".run" / f"bench-{name}", base_port=devmesh.free_port_block(),
        topic_prefix=f"bench{uuid.uuid4().hex[:8]}.", extra_env=extra_env or {},
        **({"kafka": kafka} if kafka else {}),
    )
    try:
        key = devmesh.up(layout, with_infra=False,
                         bundles=devmesh.DEMO_BUNDLES if bundles is None else bundles)
        keys = json.loads((layout.run_dir / "app_keys.json").read_text())
        yield layout, key, keys
    finally:
        devmesh.down(layout, with_infra=False)


def service_rss_mb(layout: Any, name: str) -> float | None:
    """Resident memory (MiB) of one service of a mesh started by :func:`bench_mesh` (None when
    it is not running)."""
    try:
        pid = int((layout.run_dir / "pids" / f"{name}.pid").read_text())
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError):
        return None
    return None
