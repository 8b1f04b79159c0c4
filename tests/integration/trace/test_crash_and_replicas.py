"""trace-recorder's view on a real database, in a whole private mesh (real processes).

* kill -9 of trace-recorder in the middle of a burst of managed calls, restart: its view equals
  one rebuilt from offset zero (no record lost, none doubled), on SQLite and on PostgreSQL;
* two trace-recorder replicas on one PostgreSQL split the partitions and answer the same views;
  what one replica wrote, the other reads at once.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import devmesh
import pytest

from bkn_common.framework import rebuildable
from bkn_common.framework.digest import state_digest
from clctl.replay import StartAt, rebuild
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh
from trace_recorder.adapters.postgres_view import PostgresDialect
from trace_recorder.rebuild import BufferedView
from trace_recorder.service_layer.store import TraceStore

FX: dict[str, Any] = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_fx_convert",
      "arguments": {"amount": 10, "from": "USD", "to": "CNY"}}
INVOCATION = "x-openbkn-client-invocation-id"  # one operation per call
CALLS, KILL_AFTER = 3, 10
SECOND = 20  # the second replica's port offset in the mesh's block (unused by devmesh)


def managed_turn(mesh: RunningMesh, n: int, recorded: list[str]) -> None:
    """One managed turn: start, CALLS executions, finish; ``recorded`` gets the operation id of
    each execution the trace core recorded. While trace-recorder is down the gateway runs the
    calls unrecorded (its outage policy); the turn goes on either way."""
    started = mesh.call("bkn_start_interaction", {"question": f"burst {n}", "agent_name": "burst",
                                                   "conversation_mode": "new"})
    ctx = ({"conversation_id": started.json()["conversation_id"],
            "interaction_id": started.json()["interaction_id"]} if started.status_code == 200 else None)
    for k in range(CALLS):
        body = {**FX, "arguments": {**FX["arguments"], "amount": 10 + k},
                **({"bkn_context": ctx} if ctx else {})}
        executed = mesh.call("execute_tool", body, **{INVOCATION: uuid.uuid4().hex})
        if executed.status_code == 200 and "bkn-operation-id" in executed.headers:
            recorded.append(executed.headers["bkn-operation-id"])
    if ctx:
        mesh.call("bkn_finish_interaction", {**ctx, "outcome": "completed", "answer": "72 CNY"})


def turns_until(mesh: RunningMesh, stop: threading.Event, recorded: list[str]) -> None:
    n = 0
    while not stop.is_set():
        managed_turn(mesh, n, recorded)
        n += 1


def rebuilt_digest(mesh: RunningMesh) -> dict[str, Any]:
    """trace-recorder's topics folded from offset zero into a fresh in-memory store."""
    target = rebuildable.load("trace-recorder")
    store = BufferedView(TraceStore())
    asyncio.run(rebuild(mesh.layout.kafka, mesh.layout.topic_prefix, target, store, StartAt()))
    return state_digest(store.snapshot())


def live_digest(mesh: RunningMesh, url: str | None = None) -> dict[str, Any]:
    with mesh.internal("trace_recorder") as client:
        response = client.get(f"{url or mesh.url('trace_recorder')}/internal/v1/state/digest")
    assert response.status_code == 200, response.text
    digest: dict[str, Any] = response.json()
    return digest


def converged(mesh: RunningMesh, *urls: str | None, timeout: float = 120) -> dict[str, Any]:
    """Poll until every live view equals a rebuild from offset zero taken after it (spans keep
    arriving from the exporters for a moment after the burst); returns that digest."""
    deadline = time.monotonic() + timeout
    while True:
        lives = [live_digest(mesh, url) for url in urls or (None,)]
        rebuilt = rebuilt_digest(mesh)
        if all(live == rebuilt for live in lives):
            return rebuilt
        if time.monotonic() > deadline:
            sections = {k: (v["count"], [live["sections"].get(k, {}).get("count") for live in lives])
                        for k, v in rebuilt["sections"].items()}
            raise AssertionError(f"the live view never equalled the rebuilt one: {sections}")
        time.sleep(0.5)


def wait_for(recorded: list[str], count: int, workers: list[Any]) -> None:
    deadline = time.monotonic() + 300
    while len(recorded) < count:
        assert time.monotonic() < deadline, f"only {len(recorded)} recorded calls"
        for worker in workers:
            if worker.done():
                worker.result()  # a worker that died: say why
        time.sleep(0.02)


def burst_with_a_kill(mesh: RunningMesh) -> set[str]:
    """Managed calls from 4 workers; after KILL_AFTER recorded calls, SIGKILL trace-recorder and
    start it again while they go on; stop once as many more were recorded after the restart.
    Returns the operation ids the trace core recorded."""
    recorded: list[str] = []
    stop = threading.Event()
    with ThreadPoolExecutor(max_workers=4) as pool:
        workers = [pool.submit(turns_until, mesh, stop, recorded) for _ in range(4)]
        try:
            wait_for(recorded, KILL_AFTER, workers)
            mesh.restart("trace-recorder", kill=True)  # the burst goes on meanwhile
            wait_for(recorded, len(recorded) + KILL_AFTER, workers)
        finally:
            stop.set()
        for worker in workers:
            worker.result()
    return set(recorded)


def assert_every_operation_once(mesh: RunningMesh, operations: set[str], digest: dict[str, Any]) -> None:
    """Every call the trace core acknowledged is in the view (ids are keys: none is doubled,
    and the section has the rebuilt store's count and digest)."""
    with mesh.internal("trace_recorder") as client:
        held = client.get("/internal/v1/state/snapshot", params={"section": "operations"}).json()
    assert operations <= set(held), operations - set(held)
    assert digest["sections"]["operations"]["count"] == len(held) >= 2 * KILL_AFTER


@pytest.fixture(scope="module")
def sqlite_mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("mesh-sqlite"),
                      extra_env={"TRACE_RECORDER_STORE": "sqlite"}) as running:
        yield running


def test_kill_9_mid_burst_on_sqlite_loses_and_doubles_nothing(sqlite_mesh: RunningMesh) -> None:
    operations = burst_with_a_kill(sqlite_mesh)
    digest = converged(sqlite_mesh)
    assert_every_operation_once(sqlite_mesh, operations, digest)
    assert Path(sqlite_mesh.layout.env()["TRACE_RECORDER_SQLITE_PATH"]).exists()


@pytest.fixture(scope="module")
def pg_schema(postgres: str) -> Iterator[str]:
    name = f"mesh_{uuid.uuid4().hex[:12]}"
    yield name
    PostgresDialect(postgres, schema=name).drop_schema()


@pytest.fixture(scope="module")
def pg_mesh(infra: Infra, postgres: str, pg_schema: str,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"TRACE_RECORDER_STORE": "postgresql", "TRACE_RECORDER_DATABASE_URL": postgres,
           "TRACE_RECORDER_DATABASE_SCHEMA": pg_schema,
           "TRACE_RECORDER_REPLICA_INDEX": "0", "TRACE_RECORDER_REPLICA_COUNT": "2"}
    with running_mesh(infra, tmp_path_factory.mktemp("mesh-pg"), extra_env=env) as running:
        second = devmesh.Process("trace-recorder-1", [
            "env", f"TRACE_RECORDER_PORT={running.layout.port(SECOND)}", "TRACE_RECORDER_REPLICA_INDEX=1",
            sys.executable, "-m", "trace_recorder"], running.layout.port(SECOND))
        devmesh.start_process(running.layout, second)
        try:
            devmesh.wait_healthy(running.layout, [second])
            yield running
        finally:
            devmesh.stop_processes(running.layout, [second.name])


def second_url(mesh: RunningMesh) -> str:
    return f"http://127.0.0.1:{mesh.layout.port(SECOND)}"


def test_kill_9_mid_burst_on_postgresql_loses_and_doubles_nothing(pg_mesh: RunningMesh) -> None:
    operations = burst_with_a_kill(pg_mesh)
    digest = converged(pg_mesh, None, second_url(pg_mesh))  # both replicas, one view
    assert_every_operation_once(pg_mesh, operations, digest)


def test_two_replicas_split_the_partitions_and_answer_the_same_views(pg_mesh: RunningMesh) -> None:
    first, second = pg_mesh.url("trace_recorder"), second_url(pg_mesh)
    with pg_mesh.internal("trace_recorder", account="dev") as client:
        # what the first replica writes, the second reads at once (and may go on with)
        started = client.post(f"{first}/internal/v1/interactions/start", json={
            "question": "split", "agent_name": "replicas", "conversation_mode": "new"})
        assert started.status_code == 200, started.text
        ids = {k: started.json()[k] for k in ("conversation_id", "interaction_id")}
        begun = client.post(f"{second}/internal/v1/operations/begin", json={
            **ids, "tool_name": "lookup", "input_hash": "h", "correlation": "c1"})
        assert begun.status_code == 200 and begun.json()["status"] == "new", begun.text
        done = client.post(f"{first}/internal/v1/operations/complete", json={
            "operation_id": begun.json()["operation_id"], "receipt_status": "completed",
            "result": {"rows": 1}})
        assert done.status_code == 200 and done.json()["evidence_durability"] == "durable", done.text
        finished = client.post(f"{second}/internal/v1/interactions/finish", json={
            **ids, "outcome": "completed", "answer": "one row"})
        assert finished.status_code == 200 and finished.json()["operations"] == 1, finished.text
    threads = [threading.Thread(target=managed_turn, args=(pg_mesh, 100 + n, [])) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    converged(pg_mesh, first, second)
    with pg_mesh.internal("trace_recorder") as client:
        views = [client.get(f"{url}/internal/v1/interactions/{ids['interaction_id']}").json()
                 for url in (first, second)]
        conversations = [client.get(f"{url}/internal/v1/conversations/{ids['conversation_id']}").json()
                         for url in (first, second)]
        ready = [client.get(f"{url}/readyz").json() for url in (first, second)]
    assert views[0] == views[1] and views[0]["status"] == "finished"
    assert [op["receipt_status"] for op in views[0]["operations"]] == ["completed"]
    assert conversations[0] == conversations[1]
    # replica i of 2 consumes the partitions p % 2 == i: 0 and 2, then 1, of each 3-partition topic
    topics = len(rebuildable.load("trace-recorder").topics)
    assert [r["progress"]["kafka_projection"]["partitions"] for r in ready] == [2 * topics, topics]
