"""A turn finished while trace-recorder could not seal it is sealed once trace-recorder starts
again (it looks at every interaction finished within its window), and until then its bundle
says it is not sealed: never a verdict that holds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bkn_common.provenance.bundle import verify_bundle
from bkn_common.provenance.keys import load_keyring
from tests.integration.capabilities.helpers import FX, FX_ARGS, execute, ok, start_interaction
from tests.integration.trace.test_gateway_provenance import eventually
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"TRACE_RECORDER_SEAL_SWEEP_SECONDS": "3600"}  # no sweep after the first, at start
    with running_mesh(infra, tmp_path_factory.mktemp("provenance_restart"), extra_env=env) as running:
        yield running


def bundle(mesh: RunningMesh, interaction_id: str) -> dict:  # type: ignore[type-arg]
    with mesh.internal("trace_recorder") as client:
        response = client.get(f"/internal/v1/interactions/{interaction_id}/bundle")
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def test_an_unsealed_turn_is_sealed_after_a_restart(mesh: RunningMesh) -> None:
    keys = load_keyring(mesh.layout.run_dir / "provenance_keys.json").public
    context = start_interaction(mesh)
    ok(execute(mesh, context, *FX, FX_ARGS))
    finish = mesh.call("bkn_finish_interaction", {**context, "outcome": "completed", "answer": "72"})
    assert finish.status_code == 200, finish.text

    def receipt_landed() -> dict:  # type: ignore[type-arg]
        found = bundle(mesh, context["interaction_id"])
        assert any(r["kind"] == "execution.receipt" for r in found["records"])
        return found

    unsealed = eventually(receipt_landed)
    assert unsealed["chain"]["heads"] == []
    report = verify_bundle(unsealed, keys)
    assert not report.ok and report.first_broken is not None
    assert report.first_broken.detail.startswith("record not sealed: ")
    mesh.restart("trace-recorder")

    def sealed() -> dict:  # type: ignore[type-arg]
        found = bundle(mesh, context["interaction_id"])
        assert [h["seq"] for h in found["chain"]["heads"]] == [1]
        return found

    report = verify_bundle(eventually(sealed, timeout=60), keys)
    assert report.ok, report.first_broken
