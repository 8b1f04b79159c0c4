"""clctl replay rebuilds each service's store from its topics and verifies it against the live
service; clctl dump exports a topic range as JSON lines."""

from __future__ import annotations

import json
import subprocess

import devmesh
import pytest

from tests.support.mesh import RunningMesh

SERVICES = {
    "capability-index": "capability_index",
    "tool-executor": "tool_executor",
    "ontology-query": "ontology_query",
    "trace-recorder": "trace_recorder",
}


def clctl(mesh: RunningMesh, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(devmesh.BIN / "clctl"), *args], env=mesh.layout.env(),
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("service", sorted(SERVICES))
def test_replay_verify_reports_the_rebuilt_store_identical_to_the_live_one(
    mesh: RunningMesh, service: str
) -> None:
    result = clctl(mesh, "replay", service, "--verify", "--live-url", mesh.url(SERVICES[service]))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "identical to the live state" in result.stdout
    assert "poison skipped" in result.stdout


def test_dump_exports_a_topic_range_as_json_lines(mesh: RunningMesh) -> None:
    result = clctl(mesh, "dump", "bkn.bindings.v1", "--offset", "0")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines and all(line["topic"].endswith("bkn.bindings.v1") for line in lines)
    replaced = [line for line in lines if line["value"]["type"] == "binding.replaced"]
    assert {line["key"] for line in replaced} >= {"supply_chain", "other_network"}
