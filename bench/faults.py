"""``make faults``: one fault at a time under a steady load, every call counted.

    python bench/faults.py [fault ...]        # a subset by name; default: all of FAULTS

A private mesh with its OWN Kafka broker and Redis (``scripts/kafka.sh`` / ``redis.sh`` on
free ports in ``.run/faults/``; the shared ones on 9092 / 6379 are never touched), the demo
bundles, and a load of managed ``execute_tool`` calls (``fx_convert`` on the demo finance
API, each with its own client invocation id, in an interaction from ``bkn_start_interaction``)
plus ``search_capabilities`` calls through the gateway. For each fault: load, inject, repair,
wait until an execution succeeds again (seconds to recover), retry once with the same
invocation id every call that got no final answer, then count:

- calls sent, answered 2xx, answered with a documented error (the envelope: ``code`` and
  ``message``), answered otherwise, lost (no answer, not even on the retry, and no receipt);
- upstream executions (the finance API counts them per invocation id and receipt id), the
  receipts on Kafka (the receipts topic read end to end), duplicate executions of one
  invocation id, receipts missing for an execution, 2xx answers without a receipt.

Invariants asserted per fault: no duplicate execution of one invocation id; every upstream
execution has exactly one receipt on Kafka; no 2xx answer without its receipt; every receipt
of the fault's calls on Kafka verifies (signed with the run folder's receipt key, recovered
ones included: ``bkn_common.provenance.receipts``). A fault under
which an invariant cannot hold is named in KNOWN_LIMITS with the reason; only that
assertion is skipped for it, and the reason is printed. Rows: bench/results/faults.json.
Exit status 1 when an invariant broke.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import devmesh  # noqa: E402
import httpx  # noqa: E402

from bench.harness import print_table, write_result  # noqa: E402

RUN = ROOT / ".run" / "faults"
API = "/api/agent-retrieval/v1/kn"
FX = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_fx_convert",
      "arguments": {"amount": 10, "from": "USD", "to": "CNY"}}
INVOCATION = "x-openbkn-client-invocation-id"
SERVICES = ("gateway", "capability-index", "tool-executor", "trace-recorder", "ontology-query",
            "knowledge-base")
LOAD_SECONDS = 4.0  # load before and after each fault
OUTAGE_SECONDS = 8.0  # how long a stopped broker / Redis / slow upstream stays so
TRACE_OUTAGE_SECONDS = 20.0
SLOW_SECONDS = 7.0  # past the finance toolbox's 5 s timeout
RECOVERY_LIMIT = 180.0
CALL_TIMEOUT = 20.0
# a retry whose first try's gateway died mid-call finds the id's record still running and waits
# for it (the gateway's IDEMPOTENT_WAIT_SECONDS, 60) before it answers 409 receipt_pending
RETRY_TIMEOUT = 90.0
RECOVERY_GRACE = 3.0  # TOOL_EXECUTOR_RECEIPT_RECOVERY_GRACE_SECONDS of this run (default 30)

KNOWN_LIMITS: dict[str, dict[str, str]] = {
    "redis": {
        "duplicates": "Redis runs without persistence: its restart forgets the gateway's "
                      "invocation records, so a retry with the same invocation id after the "
                      "restart can run the tool again (a second, fresh 200) unless trace-recorder "
                      "replays the operation (a managed call in the same interaction).",
    },
}


def _script_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment of scripts/kafka.sh / redis.sh for OUR servers: without the shared
    KAFKA_BOOTSTRAP_SERVERS / REDIS_URL (with them the scripts manage nothing)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KAFKA_BOOTSTRAP_SERVERS", "REDIS_URL")}
    return {**env, **extra}


@dataclass(frozen=True)
class PrivateInfra:
    """Our broker and Redis on offsets of the mesh's own port block that no service uses: below
    the ephemeral range, so no client socket takes a port while the broker or Redis is down."""

    kafka_port: int
    controller_port: int
    redis_port: int

    @classmethod
    def in_block(cls, base_port: int) -> PrivateInfra:
        return cls(base_port + 30, base_port + 31, base_port + 32)

    @property
    def kafka(self) -> str:
        return f"127.0.0.1:{self.kafka_port}"

    @property
    def redis(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def kafka_script(self, action: str) -> None:
        env = _script_env({"KAFKA_PORT": str(self.kafka_port), "KAFKA_CONTROLLER_PORT": str(self.controller_port),
                           "KAFKA_RUN_DIR": str(RUN / "kafka"), "KAFKA_START_TIMEOUT": "240"})
        subprocess.run([str(ROOT / "scripts" / "kafka.sh"), action], env=env, check=True,
                       stdout=subprocess.DEVNULL)

    def redis_script(self, action: str) -> None:
        env = _script_env({"REDIS_PORT": str(self.redis_port), "REDIS_RUN_DIR": str(RUN / "redis")})
        subprocess.run([str(ROOT / "scripts" / "redis.sh"), action], env=env, check=True,
                       stdout=subprocess.DEVNULL)


@dataclass
class Call:
    invocation: str
    sent: float = 0.0  # monotonic, when the first try was sent
    first_status: int | None = None  # the first try's answer (None: none)
    status: int | None = None  # the final answer, after the retry (None: none)
    code: str | None = None  # the envelope's code of an error answer
    documented: bool = False
    receipt: str | None = None
    retried: bool = False


class Load:
    """A steady load: one thread of managed executions, one of searches."""

    def __init__(self, layout: devmesh.MeshLayout, key: str) -> None:
        self.layout, self.key = layout, key
        self.calls: list[Call] = []
        self.searches: Counter[str] = Counter()
        self.last_success_sent = 0.0  # when the latest call answered 200 was sent
        self._context: dict[str, str] | None = None
        self._in_context = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ids = itertools.count()
        self.tag = "warmup"

    def _client(self, timeout: float = CALL_TIMEOUT) -> httpx.Client:
        return httpx.Client(base_url=self.layout.gateway_url, timeout=timeout,
                            headers={"Authorization": f"Bearer {self.key}", "Accept-Language": "en-US"})

    def _new_context(self, client: httpx.Client) -> dict[str, str] | None:
        with suppress(httpx.HTTPError, ValueError, KeyError):
            started = client.post(f"{API}/bkn_start_interaction", json={
                "question": "fault run: convert 10 USD to CNY", "agent_name": "faults",
                "conversation_mode": "new"})
            if started.status_code == 200:
                self._in_context = 0
                return {k: started.json()[k] for k in ("conversation_id", "interaction_id")}
        return None

    def execute(self, client: httpx.Client, call: Call) -> None:
        if self._context is None or self._in_context >= 100:  # <= 128 operations per interaction
            self._context = self._new_context(client)
        body = {**FX, **({"bkn_context": self._context} if self._context else {})}
        self._in_context += 1
        call.code, call.documented = None, False
        sent = time.monotonic()
        try:
            response = client.post(f"{API}/execute_tool", json=body, headers={INVOCATION: call.invocation})
        except httpx.HTTPError:
            call.status = None
            return
        call.status = response.status_code
        call.receipt = response.headers.get("bkn-receipt-id")
        if response.status_code == 200:
            self.last_success_sent = max(self.last_success_sent, sent)
            return
        with suppress(ValueError):
            envelope = response.json()
            call.documented = isinstance(envelope, dict) and isinstance(envelope.get("code"), str) \
                and isinstance(envelope.get("message"), str)
            call.code = envelope.get("code") if call.documented else None
            if envelope.get("code") in ("conversation_required", "interaction_not_found",
                                        "interaction_finished", "operation_limit"):
                self._context = None

    def _executions(self) -> None:
        with self._client() as client:
            while not self._stop.is_set():
                call = Call(f"faults-{self.tag}-{next(self._ids)}-{uuid.uuid4().hex[:6]}", time.monotonic())
                self.calls.append(call)
                self.execute(client, call)
                call.first_status = call.status
                self._stop.wait(0.1)

    def _searches(self) -> None:
        with self._client() as client:
            while not self._stop.is_set():
                try:
                    found = client.post(f"{API}/search_capabilities", json={"kn_id": "supply_chain", "query": "汇率"})
                    self.searches["2xx" if found.status_code == 200 else "error"] += 1
                except httpx.HTTPError:
                    self.searches["no answer"] += 1
                self._stop.wait(0.3)

    def start(self, tag: str) -> None:
        self.tag, self.calls, self.searches = tag, [], Counter()
        self._stop.clear()
        self._threads = [threading.Thread(target=t, daemon=True) for t in (self._executions, self._searches)]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def retry_unfinished(self) -> None:
        """Once more, with the same invocation id, each call without a final answer (none, a 5xx,
        or 409 while its first run is pending): what a careful client does after an outage. The
        retries run side by side (one waits up to a minute for a dead gateway's running record)."""
        unfinished = [c for c in self.calls if c.status is None or c.status >= 500 or c.status == 409]

        def retry(batch: list[Call]) -> None:
            with self._client(RETRY_TIMEOUT) as client:
                for call in batch:
                    call.retried = True
                    self.execute(client, call)
        threads = [threading.Thread(target=retry, args=(unfinished[i::16],)) for i in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def wait_until_executing(load: Load, repaired: float) -> None:
    """Until a call sent after the repair was answered 200 (bounded by RECOVERY_LIMIT)."""
    deadline = time.monotonic() + RECOVERY_LIMIT
    while load.last_success_sent < repaired and time.monotonic() < deadline:
        time.sleep(0.2)
    if load.last_success_sent < repaired:
        raise RuntimeError(f"no execution succeeded within {RECOVERY_LIMIT:.0f} s of the repair")


def recovery_seconds(calls: list[Call], began: float) -> float:
    """What a caller saw: from the fault until the first call sent after the last one whose first
    try failed (no answer or not 200) was sent; 0 when no call failed."""
    failed = [c.sent for c in calls if c.sent >= began and c.first_status != 200]
    if not failed:
        return 0.0
    after = [c.sent for c in calls if c.sent > max(failed) and c.first_status == 200]
    return round(min(after) - began, 1) if after else float("nan")


def finance_ledger(layout: devmesh.MeshLayout) -> dict[str, Any]:
    response = httpx.get(layout.urls()["finance_api"] + "/_stats/executions", timeout=30)
    response.raise_for_status()
    return dict(response.json())


def kafka_receipts(layout: devmesh.MeshLayout) -> tuple[Counter[str], dict[str, str]]:
    """Receipt ids on the receipts topic, read from the beginning to the current end, and why
    each receipt that does not verify with the run folder's public keys fails (by id)."""
    from aiokafka import AIOKafkaConsumer

    from bkn_common.contracts.topics import RECEIPTS
    from bkn_common.provenance.keys import load_keyring
    from bkn_common.provenance.receipts import receipt_problem

    topic = RECEIPTS.full_name(layout.topic_prefix)
    keys = load_keyring(devmesh.ensure_provenance_keys(layout.run_dir)).public
    unverified: dict[str, str] = {}

    async def read() -> Counter[str]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=layout.kafka, enable_auto_commit=False,
                                    auto_offset_reset="earliest")
        await consumer.start()
        try:
            while not consumer.assignment():  # noqa: ASYNC110 (aiokafka assigns in its own task)
                await asyncio.sleep(0.1)
            partitions = sorted(consumer.assignment())
            ends = await consumer.end_offsets(partitions)
            counts: Counter[str] = Counter()
            while [tp for tp in partitions if await consumer.position(tp) < ends[tp]]:
                batch = await consumer.getmany(timeout_ms=1000)
                for records in batch.values():
                    for record in records:
                        data = json.loads(record.value or b"{}").get("data", {})
                        if data.get("receipt_id"):
                            counts[str(data["receipt_id"])] += 1
                            problem = receipt_problem(data, keys)
                            if problem is not None:
                                unverified[str(data["receipt_id"])] = problem
            return counts
        finally:
            await consumer.stop()

    return asyncio.run(read()), unverified


@contextmanager
def finance_delay(layout: devmesh.MeshLayout, seconds: float) -> Iterator[None]:
    url = layout.urls()["finance_api"] + "/_test/delay"
    httpx.post(url, json={"seconds": seconds}, timeout=10).raise_for_status()
    try:
        yield
    finally:
        httpx.post(url, json={"seconds": 0}, timeout=10).raise_for_status()


def baseline(load: Load) -> None:
    """One execution must succeed before any fault (else the mesh, not a fault, is broken)."""
    with load._client() as client:
        call = Call(f"faults-baseline-{uuid.uuid4().hex[:8]}")
        load.execute(client, call)
    if call.status != 200:
        raise RuntimeError(f"the mesh does not execute fx_convert before any fault (status {call.status})")


def fault_actions(layout: devmesh.MeshLayout, infra: PrivateInfra) -> dict[str, Callable[[], None]]:
    def kill(name: str) -> Callable[[], None]:
        return lambda: devmesh.restart_process(layout, name, kill=True, timeout=RECOVERY_LIMIT)

    def kafka() -> None:
        infra.kafka_script("stop")
        time.sleep(OUTAGE_SECONDS)
        infra.kafka_script("start")

    def redis() -> None:
        infra.redis_script("stop")
        time.sleep(OUTAGE_SECONDS)
        infra.redis_script("start")

    def slow() -> None:
        with finance_delay(layout, SLOW_SECONDS):
            time.sleep(OUTAGE_SECONDS + SLOW_SECONDS)

    def trace_down() -> None:
        devmesh.stop_processes(layout, ["trace-recorder"])
        time.sleep(TRACE_OUTAGE_SECONDS)
        process = next(p for p in layout.services() if p.name == "trace-recorder")
        devmesh.start_process(layout, process)
        devmesh.wait_healthy(layout, [process], timeout=RECOVERY_LIMIT)

    return {**{f"kill-9 {name}": kill(name) for name in SERVICES},
            "kafka": kafka, "redis": redis, "upstream slow": slow, "trace-recorder down 20s": trace_down}


def measure(name: str, load: Load, inject: Callable[[], None], layout: devmesh.MeshLayout,
            seen: dict[str, Any]) -> dict[str, Any]:
    load.start(name.replace(" ", "_"))
    time.sleep(LOAD_SECONDS)
    began = time.monotonic()
    inject()
    wait_until_executing(load, time.monotonic())
    time.sleep(LOAD_SECONDS)
    load.stop()
    time.sleep(RECOVERY_GRACE + 6)  # overdue journal entries are swept and published
    load.retry_unfinished()
    time.sleep(RECOVERY_GRACE + 6)
    ledger, (receipts, unverified) = finance_ledger(layout), kafka_receipts(layout)
    mine = {c.invocation: c for c in load.calls}
    executions = {inv: e for inv, e in ledger["by_invocation"].items() if inv in mine}
    executed_receipts = [r for e in executions.values() for r in e["receipts"]]
    duplicates = sum(1 for e in executions.values() if e["count"] > 1)
    missing = sum(1 for r in executed_receipts if receipts.get(r, 0) != 1)
    unreceipted_2xx = sum(1 for c in load.calls if c.status == 200
                          and not any(receipts.get(r) for r in executions.get(c.invocation, {}).get("receipts", [])))
    lost = sum(1 for c in load.calls if c.status is None and not executions.get(c.invocation))
    unanswered_executed = sum(1 for c in load.calls if c.status is None and executions.get(c.invocation))
    suspects = [c for c in load.calls if (c.status == 200 and not any(
        receipts.get(r) for r in executions.get(c.invocation, {}).get("receipts", [])))
        or executions.get(c.invocation, {}).get("count", 0) > 1
        or (c.status is None and not executions.get(c.invocation))
        or any(receipts.get(r, 0) != 1 for r in executions.get(c.invocation, {}).get("receipts", []))]
    seen.update(executions)
    return {
        "fault": name,
        "calls_sent": len(load.calls),
        "answered_2xx": sum(1 for c in load.calls if c.status == 200),
        "answered_documented_error": sum(1 for c in load.calls if c.status not in (None, 200) and c.documented),
        "answered_other": sum(1 for c in load.calls if c.status not in (None, 200) and not c.documented),
        "lost": lost,
        "no_answer_executed": unanswered_executed,
        "retried": sum(1 for c in load.calls if c.retried),
        "upstream_executions": sum(e["count"] for e in executions.values()),
        "receipts_on_kafka": sum(receipts.get(r, 0) for r in set(executed_receipts)),
        "duplicate_executions": duplicates,
        "executions_without_one_receipt": missing,
        "2xx_without_receipt": unreceipted_2xx,
        "receipts_not_verifying": sum(1 for r in set(executed_receipts) if r in unverified),
        "recover_seconds": recovery_seconds(load.calls, began),
        "searches": dict(load.searches),
        "error_codes": dict(Counter(c.code for c in load.calls if c.code)),  # the final answers
        "first_try_statuses": dict(Counter(str(c.first_status) for c in load.calls)),
        "unverified_receipts": {r: unverified[r] for r in sorted(set(executed_receipts)) if r in unverified},
        "suspect_calls": [{"invocation": c.invocation, "first_status": c.first_status, "status": c.status,
                           "code": c.code, "receipt": c.receipt, "sent_s": round(c.sent - began, 1),
                           "executions": executions.get(c.invocation)} for c in suspects[:20]],
    }


def table_row(row: dict[str, Any]) -> dict[str, Any]:
    """The row's counts (the JSON row also has searches, error codes and suspect calls)."""
    return {k: v for k, v in row.items()
            if k not in ("searches", "error_codes", "first_try_statuses", "suspect_calls", "unverified_receipts")}


def check(row: dict[str, Any]) -> list[str]:
    limits = KNOWN_LIMITS.get(row["fault"], {})
    broken = []
    for invariant, column in (("duplicates", "duplicate_executions"),
                              ("receipts", "executions_without_one_receipt"),
                              ("success", "2xx_without_receipt"),
                              ("signatures", "receipts_not_verifying")):
        if row[column] == 0:
            continue
        if invariant in limits:
            print(f"  {row['fault']}: {column}={row[column]} skipped: {limits[invariant]}")
            continue
        broken.append(f"{row['fault']}: {column}={row[column]}")
    return broken


def fresh_run_folder() -> None:
    """A run starts from nothing: the previous run's broker data (other topic prefixes, whose
    partitions a restarting broker would load), checkpoints and trace store are removed."""
    if RUN.exists():  # a run that was itself killed may have left its processes up
        layout = devmesh.MeshLayout(run_dir=RUN / "mesh")
        devmesh.stop_processes(layout, [p.name for p in layout.services()])
        leftover = PrivateInfra(0, 0, 0)  # stop finds them by their pid files
        for stop in (leftover.redis_script, leftover.kafka_script):
            with suppress(subprocess.CalledProcessError):
                stop("stop")
        shutil.rmtree(RUN)
    RUN.mkdir(parents=True)


def main(selected: list[str] | None = None) -> int:
    fresh_run_folder()
    base_port = devmesh.free_port_block()
    infra = PrivateInfra.in_block(base_port)
    infra.kafka_script("start")
    infra.redis_script("start")
    layout = devmesh.MeshLayout(
        run_dir=RUN / "mesh", base_port=base_port,
        topic_prefix=f"faults{uuid.uuid4().hex[:8]}.", kafka=infra.kafka, redis=infra.redis,
        extra_env={"TOOL_EXECUTOR_RECEIPT_RECOVERY_GRACE_SECONDS": str(RECOVERY_GRACE),
                   "TOOL_EXECUTOR_RECEIPT_SWEEP_SECONDS": "1"},
    )
    rows: list[dict[str, Any]] = []
    broken: list[str] = []
    try:
        key = devmesh.up(layout, with_infra=False, bundles=devmesh.DEMO_BUNDLES)
        load = Load(layout, key)
        baseline(load)
        seen: dict[str, Any] = {}
        for name, inject in fault_actions(layout, infra).items():
            if selected and not any(s in name for s in selected):
                continue
            print(f"fault: {name}", flush=True)
            try:
                row = measure(name, load, inject, layout, seen)
            except (RuntimeError, subprocess.CalledProcessError, httpx.HTTPError) as exc:
                load.stop()
                broken.append(f"{name}: the run itself failed ({exc}); later faults skipped")
                break
            rows.append(row)
            broken += check(row)
            print_table(name, [table_row(row)])
    finally:
        devmesh.down(layout, with_infra=False)
        with suppress(subprocess.CalledProcessError):
            infra.redis_script("stop")
        with suppress(subprocess.CalledProcessError):
            infra.kafka_script("stop")
    print_table("faults", [table_row(r) for r in rows])
    write_result("faults", {"rows": rows, "known_limits": KNOWN_LIMITS, "broken": broken})
    for line in broken:
        print(f"INVARIANT BROKEN: {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
