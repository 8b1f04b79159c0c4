"""clctl keys new / keys export --keyring / trace verify, offline."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from bkn_common.provenance.keys import load_keyring
from bkn_common.provenance.receipts import sign_receipt
from clctl.cli import app
from tests.support.trace_view_contract import Turns, at, batch
from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.adapters.memory_event_sink import MemoryEventSink
from trace_recorder.service_layer.bundle import interaction_bundle
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.sealing import Sealer
from trace_recorder.service_layer.store import TraceStore

runner = CliRunner()


def test_a_keyring_made_rotated_and_exported_without_private_parts(tmp_path: Path) -> None:
    ring = tmp_path / "keys.json"
    assert runner.invoke(app, ["keys", "new", "-o", str(ring)]).exit_code == 0
    assert ring.stat().st_mode & 0o777 == 0o600
    rotated = runner.invoke(app, ["keys", "new", "-o", str(ring), "--role", "receipt",
                                  "--valid-from", "2027-01-01T00:00:00+00:00"])
    assert rotated.exit_code == 0, rotated.output
    assert [k.public.role for k in load_keyring(ring).signing] == ["receipt", "seal", "receipt"]
    exported = runner.invoke(app, ["keys", "export", "--keyring", str(ring)])
    assert exported.exit_code == 0
    jwks = json.loads(exported.stdout)
    assert len(jwks["keys"]) == 3 and all("d" not in k for k in jwks["keys"])
    assert runner.invoke(app, ["keys", "new", "-o", str(ring), "--role", "other"]).exit_code == 2


def test_verify_prints_a_table_and_one_verdict_and_exits_by_it(tmp_path: Path) -> None:
    ring_file = tmp_path / "keys.json"
    runner.invoke(app, ["keys", "new", "-o", str(ring_file)])
    ring = load_keyring(ring_file)
    key = ring.signer("receipt", at(0))
    assert key is not None
    store = TraceStore()
    batch(store, [sign_receipt(e, key) if hasattr(e, "receipt_id") and hasattr(e, "arguments_hash") else e
                  for e in Turns.turn(1)])
    core = Core(store, MemoryEventSink(), MemoryCoordination(), Policy(), clock=lambda: at(100))
    asyncio.run(Sealer(core, ring, clock=lambda: at(100)).seal("int_1"))
    bundle = interaction_bundle(store, "int_1", at(200))
    bundle_file, public = tmp_path / "bundle.json", tmp_path / "public.json"
    bundle_file.write_text(json.dumps(bundle))
    public.write_text(runner.invoke(app, ["keys", "export", "--keyring", str(ring_file)]).stdout)
    good = runner.invoke(app, ["trace", "verify", str(bundle_file), "--keys", str(public)])
    assert good.exit_code == 0, good.output
    assert "verdict: VERIFIED" in good.output and "execution.receipt exec_1_0" in good.output
    assert bundle is not None
    bundle["records"][0]["data"]["question"] = "another question?"
    bundle_file.write_text(json.dumps(bundle))
    bad = runner.invoke(app, ["trace", "verify", str(bundle_file), "--keys", str(public)])
    assert bad.exit_code == 1
    assert ("verdict: NOT VERIFIED: changed field: interaction.started int_1 field question differs "
            "from what was sealed") in bad.output
    assert runner.invoke(app, ["trace", "verify", str(tmp_path / "none.json"), "--keys", str(public)]).exit_code == 2
