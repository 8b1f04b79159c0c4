"""Provenance anyone can verify offline, on the real mesh: a managed turn of three calls (one
failing) exports a bundle that ``clctl trace verify`` accepts with the deployment's public
keys, found through the run folder with no environment; the same bundle with one byte of a
result changed, an operation removed, two receipts swapped or its heads re-signed with a
foreign key is refused with the right reason."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bkn_common.provenance.chain import seal_payload
from bkn_common.provenance.keys import keyring_from_jwks, new_keyring
from tests.integration.capabilities.helpers import FX, FX_ARGS, execute, ok, start_interaction
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

CLCTL = str(Path(sys.executable).parent / "clctl")
SILENT = ("MESH_INTERNAL_SECRET", "KAFKA_BOOTSTRAP_SERVERS", "TOPIC_PREFIX", "CLCTL_RUN_DIR")


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    env = {"TRACE_RECORDER_SEAL_SWEEP_SECONDS": "0.3"}
    with running_mesh(infra, tmp_path_factory.mktemp("provenance"), extra_env=env) as running:
        yield running


def clctl(mesh: RunningMesh, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """clctl with none of the mesh's settings in its environment: only the run folder."""
    env = {k: v for k, v in os.environ.items() if k not in SILENT}
    return subprocess.run([CLCTL, "--run-dir", str(mesh.layout.run_dir), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def turn(mesh: RunningMesh, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    context = start_interaction(mesh)
    ok(execute(mesh, context, *FX, FX_ARGS))
    failing = execute(mesh, context, *FX, {"amount": 1, "from": "XXX", "to": "CNY"})
    assert ok(failing)["error"] == "unsupported_currency"
    ok(execute(mesh, context, "mcp_logistics", "track_shipment", {"shipment_id": "SF1234567890"}))
    finish = mesh.call("bkn_finish_interaction", {**context, "outcome": "completed", "answer": "done"})
    assert finish.status_code == 200, finish.text
    folder = tmp_path_factory.mktemp("audit")
    bundle_file, keys_file = folder / "bundle.json", folder / "keys.json"
    exported = clctl(mesh, "keys", "export", "-o", str(keys_file), cwd=folder)
    assert exported.returncode == 0, exported.stderr
    deadline = time.monotonic() + 60
    while True:  # receipts land through Kafka; a seal covers them within a sweep or two
        exported = clctl(mesh, "trace", "export", context["interaction_id"], "-o", str(bundle_file), cwd=folder)
        assert exported.returncode == 0, exported.stderr
        bundle = json.loads(bundle_file.read_text())
        receipts = [r for r in bundle["records"] if r["kind"] == "execution.receipt"]
        if len(receipts) == 3 and all(r["index"] is not None for r in bundle["records"]):
            return bundle_file, keys_file, bundle
        assert time.monotonic() < deadline, bundle
        time.sleep(0.5)


def verify(mesh: RunningMesh, bundle: dict[str, Any], keys_file: Path,
           folder: Path) -> subprocess.CompletedProcess[str]:
    path = folder / "edited.json"
    path.write_text(json.dumps(bundle))
    return clctl(mesh, "trace", "verify", str(path), "--keys", str(keys_file), cwd=folder)


def verdict(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stdout.splitlines() if line.startswith("verdict: ")]
    assert len(lines) == 1, result.stdout + result.stderr
    return lines[0]


def test_the_exported_bundle_verifies_offline(mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]]) -> None:
    bundle_file, keys_file, bundle = turn
    outcomes = sorted(r["data"]["outcome"] for r in bundle["records"] if r["kind"] == "execution.receipt")
    assert outcomes == ["succeeded", "succeeded", "tool_error"]
    assert all(r["data"]["signature"] and r["data"]["response_hash"].startswith("sha256:")
               for r in bundle["records"] if r["kind"] == "execution.receipt")
    keys = json.loads(keys_file.read_text())
    assert {k["bkn_role"] for k in keys["keys"]} == {"receipt", "seal"} and all("d" not in k for k in keys["keys"])
    result = clctl(mesh, "trace", "verify", str(bundle_file), "--keys", str(keys_file), cwd=bundle_file.parent)
    assert result.returncode == 0, result.stdout
    assert verdict(result).startswith("verdict: VERIFIED")


def test_one_byte_of_a_result_changed_is_named(mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]]) -> None:
    _, keys_file, bundle = turn
    edited = copy.deepcopy(bundle)
    completed = next(r for r in edited["records"] if r["kind"] == "operation.completed"
                     and "converted" in json.dumps(r["data"]["result"]))
    text = json.dumps(completed["data"]["result"])
    completed["data"]["result"] = json.loads(text.replace("720", "721", 1))
    result = verify(mesh, edited, keys_file, keys_file.parent)
    assert result.returncode == 1
    assert verdict(result) == (f"verdict: NOT VERIFIED: changed field: operation.completed {completed['ref']} "
                               "field result differs from what was sealed")


def test_a_removed_operation_is_missing(mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]]) -> None:
    _, keys_file, bundle = turn
    edited = copy.deepcopy(bundle)
    gone = next(r["ref"] for r in edited["records"] if r["kind"] == "operation.begun")
    edited["records"] = [r for r in edited["records"]
                         if r["ref"] != gone and r["data"].get("operation_id") != gone]
    result = verify(mesh, edited, keys_file, keys_file.parent)
    assert result.returncode == 1
    assert verdict(result).startswith("verdict: NOT VERIFIED: missing record: chain entry ")
    assert gone in verdict(result)


def test_two_swapped_receipts_are_reordered(mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]]) -> None:
    _, keys_file, bundle = turn
    edited = copy.deepcopy(bundle)
    records = edited["records"]
    i, j = [n for n, r in enumerate(records) if r["kind"] == "execution.receipt"][:2]
    records[i], records[j] = records[j], records[i]
    result = verify(mesh, edited, keys_file, keys_file.parent)
    assert result.returncode == 1
    assert verdict(result).startswith("verdict: NOT VERIFIED: reordered: ")


def test_heads_re_signed_with_a_foreign_key_fail(mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]]) -> None:
    _, keys_file, bundle = turn
    foreign = keyring_from_jwks(new_keyring()).signer("seal")
    assert foreign is not None
    edited = copy.deepcopy(bundle)
    for head in edited["chain"]["heads"]:
        head["key_id"] = foreign.kid
        head["signature"] = foreign.sign(seal_payload(edited["interaction_id"], head["seq"], head["length"],
                                                      head["head"], head["sealed_at"], foreign.kid))
    result = verify(mesh, edited, keys_file, keys_file.parent)
    assert result.returncode == 1
    assert verdict(result) == f"verdict: NOT VERIFIED: seal #1: signed by an unknown key {foreign.kid}"


def test_an_unknown_interaction_is_not_found(mesh: RunningMesh, tmp_path: Path) -> None:
    result = clctl(mesh, "trace", "export", "int_nope", cwd=tmp_path)
    assert result.returncode == 1 and "404" in result.stderr and "interaction_not_found" in result.stderr


def test_replay_verify_finds_the_mesh_through_its_run_folder(
    mesh: RunningMesh, turn: tuple[Path, Path, dict[str, Any]], tmp_path: Path,
) -> None:
    """Issue 29 §3: no MESH_INTERNAL_SECRET, Kafka address, prefix or URL in the environment;
    the seals rebuilt from the log match the live ones."""
    result = clctl(mesh, "replay", "trace-recorder", "--verify", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verify: identical to the live state" in result.stdout
