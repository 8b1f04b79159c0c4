"""Checkpointed stores: a service killed with SIGKILL in the middle of a burst of events resumes
from its last checkpoint and, caught up, equals a store rebuilt from offset zero (`clctl replay
--verify`); a corrupt or older checkpoint is ignored, said so in the log and on /readyz, and
the store rebuilds from offset zero."""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import devmesh
import httpx
import pytest

from bkn_common.contracts import events as ev
from bkn_common.framework import checkpoint as ck
from bkn_common.infra.kafka import EventPublisher, make_broker
from bkn_common.infra.settings import ServiceSettings
from capability_index.service_layer.projection import CapabilityIndex
from ontology_query.service_layer.projection import OntologyState
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

URL_KEYS = {"capability-index": "capability_index", "ontology-query": "ontology_query",
            "tool-executor": "tool_executor"}
STORE_VERSIONS = {"capability-index": CapabilityIndex.checkpoint_version,
                  "ontology-query": OntologyState.checkpoint_version}


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    interval = {f"{p}_CHECKPOINT_INTERVAL_SECONDS": "0.2"
                for p in ("CAPABILITY_INDEX", "TOOL_EXECUTOR", "ONTOLOGY_QUERY")}
    with running_mesh(infra, tmp_path_factory.mktemp("checkpoints"), extra_env=interval) as running:
        yield running


def checkpoint_file(mesh: RunningMesh, service: str) -> Path:
    return mesh.layout.checkpoint_dir / f"{service}.ckpt"


def applied_in_checkpoint(mesh: RunningMesh, service: str) -> int:
    try:
        raw = checkpoint_file(mesh, service).read_bytes()
        return ck.decode(raw, service, STORE_VERSIONS[service]).applied
    except (FileNotFoundError, ck.CheckpointRejected):
        return -1


def wait_until(predicate: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


def publish(mesh: RunningMesh, events: list[ev.Event]) -> None:
    async def run() -> None:
        broker = make_broker(ServiceSettings(kafka_bootstrap_servers=mesh.layout.kafka, service_name="test"))
        await broker.connect()
        try:
            publisher = EventPublisher(broker, mesh.layout.topic_prefix)
            for start in range(0, len(events), 200):
                await publisher.publish_many(events[start:start + 200])
        finally:
            await broker.stop()

    asyncio.run(run())


def verify(mesh: RunningMesh, service: str) -> str:
    result = subprocess.run(
        [str(devmesh.BIN / "clctl"), "replay", service, "--verify", "--live-url", mesh.url(URL_KEYS[service])],
        env=mesh.layout.env(), capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "identical to the live state" in result.stdout
    return result.stdout


def log_after(mesh: RunningMesh, service: str, offset: int) -> str:
    return (mesh.layout.run_dir / "logs" / f"{service}.log").read_bytes()[offset:].decode(errors="replace")


def log_size(mesh: RunningMesh, service: str) -> int:
    return (mesh.layout.run_dir / "logs" / f"{service}.log").stat().st_size


def readiness(mesh: RunningMesh, service: str) -> dict[str, object]:
    body: dict[str, object] = httpx.get(f"{mesh.url(URL_KEYS[service])}/readyz", timeout=10).json()
    return body


def instance_burst(n: int, tag: str) -> list[ev.Event]:
    kn = f"burst_{tag}"
    schema: list[ev.Event] = [
        ev.ObjectTypeUpserted(kn_id=kn, id="part", name="part", primary_keys=("sku",), display_key="sku",
                              properties=(ev.DataProperty(name="sku", indexed=True),
                                          ev.DataProperty(name="rev"))),
        ev.RelationTypeUpserted(kn_id=kn, id="fits", name="fits", source_object_type_id="part",
                                target_object_type_id="part"),
    ]
    objects = [ev.ObjectInstanceUpserted(kn_id=kn, ot_id="part", id=f"p{i % (n // 4)}",
                                         properties={"sku": f"p{i % (n // 4)}", "rev": i}) for i in range(n // 2)]
    links = [ev.RelationInstanceUpserted(kn_id=kn, rt_id="fits", source_id=f"p{i % 97}",
                                         target_id=f"p{(i * 7) % (n // 4)}") for i in range(n // 2)]
    mixed = [e for pair in zip(objects, links, strict=True) for e in pair]
    return schema + mixed


def binding_burst(mesh: RunningMesh, n: int) -> list[ev.Event]:
    with mesh.internal("capability_index") as client:
        keys = client.get("/internal/v1/state/snapshot", params={"section": "bindings"}).json()["supply_chain"]
    refs = []
    for key in keys:
        kind, owner, capability_id = key.split(":", 2)
        refs.append(ev.CapabilityRef(capability_type=kind, capability_id=capability_id, owner_id=owner or None))
    out: list[ev.Event] = []
    for i in range(n):
        ref = refs[i % len(refs)]
        if i % 3 == 0:
            out.append(ev.BindingUnmounted(kn_id="burst_net", capability=ref))
        elif i % 3 == 1:
            out.append(ev.BindingMounted(kn_id="burst_net", capability=ref))
        elif ref.capability_type != "skill":
            out.append(ev.ToolStateChanged(owner_id=ref.owner_id or "", tool_id=ref.capability_id,
                                           enabled=i % 2 == 0))
    out += [ev.ToolStateChanged(owner_id=r.owner_id or "", tool_id=r.capability_id, enabled=True)
            for r in refs if r.capability_type != "skill"]
    return out


@pytest.mark.parametrize("service", ["ontology-query", "capability-index"])
def test_sigkill_mid_burst_then_restart_equals_a_store_rebuilt_from_zero(mesh: RunningMesh, service: str) -> None:
    events = instance_burst(4000, "kill") if service == "ontology-query" else binding_burst(mesh, 3000)
    half = len(events) // 2
    before = applied_in_checkpoint(mesh, service)
    publish(mesh, events[:half])
    wait_until(lambda: applied_in_checkpoint(mesh, service) > before)  # a checkpoint mid-burst
    rest = threading.Thread(target=publish, args=(mesh, events[half:]))
    rest.start()
    try:
        offset = log_size(mesh, service)
        devmesh.kill_process(mesh.layout, service)  # the rest lands while it is down
    finally:
        rest.join()
    process = next(p for p in mesh.layout.services() if p.name == service)
    devmesh.start_process(mesh.layout, process)
    devmesh.wait_healthy(mesh.layout, [process], timeout=300)
    assert "restored from checkpoint" in log_after(mesh, service, offset)
    progress = readiness(mesh, service)["progress"]["kafka_projection"]  # type: ignore[index]
    assert str(progress["checkpoint"]).startswith("loaded")
    assert progress["caught_up"] is True and progress["offsets_done"] == progress["offsets_total"]
    verify(mesh, service)


def rewrite_checkpoint(mesh: RunningMesh, service: str, change: Callable[[bytes], bytes]) -> None:
    """Stop the service cleanly (it writes its checkpoint), alter the file, start it again."""
    devmesh.stop_processes(mesh.layout, [service])
    path = checkpoint_file(mesh, service)
    assert applied_in_checkpoint(mesh, service) > 0
    path.write_bytes(change(path.read_bytes()))


def flip_a_byte(raw: bytes) -> bytes:
    middle = len(raw) // 2
    return raw[:middle] + bytes([raw[middle] ^ 0x20]) + raw[middle + 1:]


INDEX_VERSION = STORE_VERSIONS["capability-index"]


def older_store_version(raw: bytes) -> bytes:
    """The file as the release before wrote it: the previous store version."""
    found = ck.decode(raw, "capability-index", INDEX_VERSION)
    return ck.encode("capability-index", INDEX_VERSION - 1, found.offsets, found.applied, found.data)


def older_file_format(raw: bytes) -> bytes:
    return raw.replace(b"bkn-checkpoint %d\n" % ck.FORMAT, b"bkn-checkpoint 0\n", 1)


@pytest.mark.parametrize(("change", "reason"), [
    (flip_a_byte, "corrupt: checksum mismatch"),
    (older_store_version, f"store version {INDEX_VERSION - 1} is older than {INDEX_VERSION}"),
    (older_file_format, "file format 0 is older than 1"),
])
def test_an_unusable_checkpoint_is_ignored_and_the_store_rebuilds_from_zero(
    mesh: RunningMesh, change: Callable[[bytes], bytes], reason: str
) -> None:
    service = "capability-index"
    rewrite_checkpoint(mesh, service, change)
    offset = log_size(mesh, service)
    process = next(p for p in mesh.layout.services() if p.name == service)
    devmesh.start_process(mesh.layout, process)
    devmesh.wait_healthy(mesh.layout, [process], timeout=300)
    log = log_after(mesh, service, offset)
    assert f"ignored ({reason}); rebuilding from offset zero" in log
    progress = readiness(mesh, service)["progress"]["kafka_projection"]  # type: ignore[index]
    assert progress["checkpoint"] == f"ignored: {reason}"
    assert progress["offsets_done"] == progress["offsets_total"] > 0  # everything, from zero
    verify(mesh, service)


def test_a_clean_restart_resumes_from_its_checkpoint_with_nothing_to_replay(mesh: RunningMesh) -> None:
    service = "tool-executor"
    offset = log_size(mesh, service)
    mesh.restart(service)
    assert "restored from checkpoint" in log_after(mesh, service, offset)
    progress = readiness(mesh, service)["progress"]["kafka_projection"]  # type: ignore[index]
    assert progress["offsets_total"] == 0  # nothing new since the checkpoint
    verify(mesh, service)


def test_the_runner_writes_a_checkpoint_at_stop_and_resumes_from_it(
    mesh: RunningMesh, tmp_path: Path
) -> None:
    """In process: no periodic checkpoint (an hour's interval), only the one at a clean stop."""
    from bkn_common.contracts.topics import projection_topics
    from bkn_common.framework.digest import state_digest
    from bkn_common.framework.projection import ProjectionRunner
    from ontology_query.service_layer.projection import OntologyState

    publish(mesh, instance_burst(400, "stop"))

    at_start: list[dict[str, object]] = []

    async def fold(store: OntologyState) -> ProjectionRunner:
        runner = ProjectionRunner(
            bootstrap_servers=mesh.layout.kafka, consumer_name="ontology-query",
            topics=projection_topics("ontology-query"), projection=store,
            topic_prefix=mesh.layout.topic_prefix,
            checkpoints=ck.CheckpointFile(tmp_path, "ontology-query", 3600),
        )
        await runner.start()
        at_start.append(runner.progress())  # before the fold task ran at all
        await asyncio.wait_for(runner.caught_up.wait(), 120)
        await runner.stop()
        return runner

    first, second = OntologyState(), OntologyState()
    folded = asyncio.run(fold(first))
    assert folded.checkpoint_status.startswith("ignored: no checkpoint at")
    assert (tmp_path / "ontology-query.ckpt").exists()
    assert folded.last_checkpoint_at is not None  # written at the stop
    resumed = asyncio.run(fold(second))
    assert resumed.checkpoint_status.startswith("loaded")
    assert resumed.last_checkpoint_at is not None and resumed.last_checkpoint_at <= folded.last_checkpoint_at
    assert resumed.applied == 0  # nothing replayed: all of it came from the checkpoint
    assert state_digest(second.snapshot()) == state_digest(first.snapshot())
    zero, resumed_at = at_start
    assert zero["caught_up"] is False and zero["offsets_done"] == 0
    assert int(zero["offsets_total"]) >= 400  # type: ignore[call-overload]
    assert resumed_at["caught_up"] is True and resumed_at["offsets_total"] == 0
    assert zero["last_checkpoint_at"] is None and resumed_at["last_checkpoint_at"] == resumed.last_checkpoint_at
