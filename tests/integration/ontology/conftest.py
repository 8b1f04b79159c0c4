"""Ontology tool tests: one private mesh for the whole folder, with the demo network, a
permission-request flow configured on the gateway, and two extra grants on the demo network:

* ``viewer`` holds a grant on ``shipment`` without ``view_detail`` → its shipment queries are
  refused with ``permission_guidance``;
* ``service`` (a service account) holds view_detail and the same ``customer`` grant as
  ``analyst`` → narrowed results with guidance but never a ``request_permission_url``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bkn_common.contracts import events as ev
from bkn_common.infra.kafka import EventPublisher, make_broker
from bkn_common.infra.settings import ServiceSettings
from clctl.bundle.loader import load_bundle
from clctl.bundle.to_events import bundle_events
from tests.integration.ontology.helpers import KN
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

ROOT = Path(__file__).resolve().parents[3]
REQUEST_TEMPLATE = "/studio/bkn/{kn_id}/object-types/{ot_id}?dialog=permission"


def _network_with_test_grants() -> ev.NetworkUpserted:
    events = bundle_events(load_bundle(ROOT / "examples" / "supply_chain"))
    network = next(e for e in events if isinstance(e, ev.NetworkUpserted))
    analyst = next(g for g in network.resource_grants if g.account == "analyst")
    return network.model_copy(update={
        "grants": (*network.grants, ev.NetworkGrant(account="service",
                                                    permissions=("view_detail",))),
        "resource_grants": (
            *network.resource_grants,
            ev.ResourceGrant(account="viewer", resource_type="object_type",
                             resource_id="shipment", operations=("execute",)),
            analyst.model_copy(update={"account": "service"}),
        ),
    })  # fmt: skip


async def _publish(mesh: RunningMesh, events: list[ev.Event]) -> None:
    settings = ServiceSettings(
        kafka_bootstrap_servers=mesh.layout.kafka, topic_prefix=mesh.layout.topic_prefix
    )
    broker = make_broker(settings)
    await broker.start()
    try:
        await EventPublisher(broker, mesh.layout.topic_prefix).publish_many(events)
    finally:
        await broker.stop()


def _wait_for_grant(mesh: RunningMesh) -> None:
    deadline = time.monotonic() + 30
    body = {"kn_id": KN, "ot_id": "shipment", "limit": 1}
    while time.monotonic() < deadline:
        if mesh.call("query_object_instance", body, account="viewer").status_code == 403:
            return
        time.sleep(0.2)
    raise RuntimeError("the test grants never reached ontology-query")


@contextmanager
def _started(infra: Infra, run_dir: Path, env: dict[str, str]) -> Iterator[RunningMesh]:
    with running_mesh(infra, run_dir, extra_env=env) as running:
        yield running


@pytest.fixture(scope="package")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {
        "GATEWAY_PERMISSION_REQUEST_PATH_TEMPLATE": REQUEST_TEMPLATE,
        "GATEWAY_PERMISSION_REQUEST_DISABLED": "false",
        "GATEWAY_ACCESS_CACHE_SECONDS": "0",
    }
    with _started(infra, tmp_path_factory.mktemp("ontology-mesh"), env) as running:
        asyncio.run(_publish(running, [_network_with_test_grants()]))
        _wait_for_grant(running)
        yield running
