"""trace-recorder's sealer and its routes: finished interactions sealed by the sweep, late
records picked up by a later look (a quarter of the interaction's age apart), the bundle and
the public keys served on the internal API (an account sees only its own interactions)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from bkn_common.contracts import events as ev
from bkn_common.framework.service import make_service_app
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.mesh_client import MeshAuth
from bkn_common.infra.settings import ServiceSettings
from bkn_common.provenance.bundle import verify_bundle
from bkn_common.provenance.keys import KeySet
from tests.support.trace_view_contract import KEYRING, Turns, at, signed, wire
from tests.unit.trace_recorder.conftest import ManualClock
from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.adapters.memory_event_sink import MemoryEventSink
from trace_recorder.entrypoints.http import install_trace_errors
from trace_recorder.entrypoints.provenance_http import provenance_router
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.sealing import NotingProjection, Sealer
from trace_recorder.service_layer.store import TraceStore

SECRET = "unit-test-mesh-secret-0123456789"


class Clock(ManualClock):
    def __init__(self) -> None:
        super().__init__()
        self.now = at(0)


def sealing(store: TraceStore, clock: Clock, keyring=KEYRING) -> tuple[Sealer, MemoryEventSink]:  # type: ignore[no-untyped-def]
    sink = MemoryEventSink()
    core = Core(store, sink, MemoryCoordination(), Policy(), clock=clock)
    return Sealer(core, keyring, window_seconds=600, clock=clock), sink


async def test_the_sweep_seals_what_the_folded_batches_touched_and_late_records_again() -> None:
    store, clock = TraceStore(), Clock()
    sealer, sink = sealing(store, clock)
    projection = NotingProjection(store, sealer)
    await projection.apply_batch(wire(signed(Turns.turn(1)) + signed(Turns.turn(2))[:-1]), {("t", 0): 10})
    assert projection.positions() == {("t", 0): 10}
    clock.now = at(2)
    assert await sealer.sweep() == 1  # turn 2 is still active
    assert [(e.interaction_id, e.seq) for e in sink.of_type(ev.InteractionSealed)] == [("int_1", 1)]  # type: ignore[attr-defined]
    assert await sealer.sweep() == 0  # nothing touched since
    await projection.apply_batch(wire(signed([Turns.receipt(1, 1, rid="exec_late")])), {})
    assert await sealer.sweep() == 1
    assert [s.seq for s in store.seals_of("int_1")] == [1, 2]
    await projection.apply_batch(wire(signed(Turns.turn(2))[-1:]), {})  # turn 2 finishes
    assert await sealer.sweep() == 1 and len(store.seals_of("int_2")) == 1


class CountingStore(TraceStore):
    def __init__(self) -> None:
        super().__init__()
        self.records_loaded: list[str] = []

    def interaction_records(self, interaction_id: str):  # type: ignore[no-untyped-def]
        self.records_loaded.append(interaction_id)
        return super().interaction_records(interaction_id)


async def test_an_active_interaction_is_looked_at_without_loading_its_records() -> None:
    store, clock = CountingStore(), Clock()
    sealer, sink = sealing(store, clock)
    projection = NotingProjection(store, sealer)
    await projection.apply_batch(wire(signed(Turns.turn(1))[:-1]), {})  # every record but the finish
    assert await sealer.sweep() == 0 and store.records_loaded == [] and sink.events == []
    await projection.apply_batch(wire(signed(Turns.turn(1))[-1:]), {})
    assert await sealer.sweep() == 1 and store.records_loaded == ["int_1"]


async def test_after_a_start_the_interactions_finished_within_the_window_are_looked_at() -> None:
    store, clock = TraceStore(), Clock()
    store.apply_events(wire(signed(Turns.turn(1)) + signed(Turns.turn(700))))  # finished at 1.5 s and 700.5 s
    sealer, _ = sealing(store, clock)  # a window of 600 s
    clock.now = at(1000)
    assert sealer.catch_up() == 1
    assert await sealer.sweep() == 1
    assert store.seals_of("int_1") == [] and len(store.seals_of("int_700")) == 1


async def test_a_sweep_that_fails_keeps_its_interactions_for_the_next_one() -> None:
    store, clock = TraceStore(), Clock()
    sealer, sink = sealing(store, clock)
    await NotingProjection(store, sealer).apply_batch(wire(signed(Turns.turn(1))), {})
    sink.fail_with = RuntimeError("kafka away")
    with pytest.raises(Exception, match="kafka away"):
        await sealer.sweep()
    sink.fail_with = None
    assert await sealer.sweep() == 1


async def test_without_a_seal_key_nothing_is_sealed() -> None:
    store, clock = TraceStore(), Clock()
    store.apply_events(wire(signed(Turns.turn(1))))
    sealer, sink = sealing(store, clock, keyring=None)
    assert not sealer.enabled
    assert await sealer.seal("int_1") is None and sink.events == []
    ready = asyncio.Event()
    await asyncio.wait_for(sealer.run(0.01, ready), 1)  # returns at once, saying so


@pytest.fixture
async def client() -> AsyncIterator[tuple[httpx.AsyncClient, TraceStore]]:
    store, clock = TraceStore(), Clock()
    store.apply_events(wire(signed(Turns.turn(1))))
    sealer, _ = sealing(store, clock)
    await sealer.seal("int_1")
    app = make_service_app(title="trace-recorder", settings=ServiceSettings(mesh_internal_secret=SECRET),
                           resources=[], readiness={})
    install_trace_errors(app)
    app.include_router(provenance_router(store, KEYRING.public, lambda: at(10)))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://trace.test",
                                 auth=MeshAuth(MeshSigner(SECRET, "gateway"))) as c:
        yield c, store


async def test_the_bundle_route_serves_a_bundle_that_verifies(client: tuple[httpx.AsyncClient, TraceStore]) -> None:
    http, _ = client
    response = await http.get("/internal/v1/interactions/int_1/bundle")
    assert response.status_code == 200
    bundle = response.json()
    assert bundle["exported_at"] == at(10).isoformat() and bundle["key_ids"]
    assert verify_bundle(bundle, KEYRING.public).ok
    keys = (await http.get("/internal/v1/provenance/keys")).json()
    assert KeySet.from_jwks(keys).jwks() == KEYRING.public.jwks() and all("d" not in k for k in keys["keys"])


async def test_another_account_or_an_unknown_id_is_not_found(client: tuple[httpx.AsyncClient, TraceStore]) -> None:
    http, _ = client
    own = await http.get("/internal/v1/interactions/int_1/bundle", headers={"X-BKN-Account": "alice"})
    assert own.status_code == 200
    for path, headers in (("/internal/v1/interactions/int_1/bundle", {"X-BKN-Account": "bob"}),
                          ("/internal/v1/interactions/int_9/bundle", {"Accept-Language": "zh-CN"})):
        refused = await http.get(path, headers=headers)
        assert refused.status_code == 404 and refused.json()["code"] == "interaction_not_found"
    chinese = await http.get("/internal/v1/interactions/int_9/bundle", headers={"Accept-Language": "zh-CN"})
    english = await http.get("/internal/v1/interactions/int_9/bundle", headers={"Accept-Language": "en-US"})
    assert chinese.json()["message"] != english.json()["message"]


async def test_unsigned_calls_are_refused(client: tuple[httpx.AsyncClient, TraceStore]) -> None:
    http, _ = client
    async with httpx.AsyncClient(transport=http._transport, base_url="http://trace.test") as bare:
        assert (await bare.get("/internal/v1/interactions/int_1/bundle")).status_code == 401
