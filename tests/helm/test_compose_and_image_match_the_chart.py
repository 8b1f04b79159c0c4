"""docker-compose.yml and deploy/docker/Dockerfile stay consistent with the chart: the same
command per service, the same environment names, the same non-root uid, every component's
package in the image."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.helm.chart import REQUIRED, ROOT, documents, render

COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
DOCKERFILE = (ROOT / "deploy" / "docker" / "Dockerfile").read_text()
# compose-only names: the demo bundles' `${VAR}` inputs and the interpreter's own switch
NOT_SETTINGS = {"FINANCE_API_URL", "LOGISTICS_MCP_URL", "PYTHONUNBUFFERED"}


PREFIXES = {"gateway": "GATEWAY_", "capability-index": "CAPABILITY_INDEX_", "tool-executor": "TOOL_EXECUTOR_",
            "trace-recorder": "TRACE_RECORDER_", "ontology-query": "ONTOLOGY_QUERY_",
            "knowledge-base": "KNOWLEDGE_BASE_"}


@pytest.fixture(scope="module")
def workloads() -> dict[str, dict[str, Any]]:
    """Each component's pod spec, knowledge-base included."""
    docs = documents(render(REQUIRED, sets={"knowledgeBase.enabled": "true"}))
    out = {}
    for doc in docs:
        if doc["kind"] in ("Deployment", "StatefulSet"):
            component = doc["metadata"]["labels"]["app.kubernetes.io/component"]
            out[component] = doc["spec"]["template"]["spec"]
    return out


def compose_services() -> list[str]:
    return [name for name, service in COMPOSE["services"].items()
            if (service.get("command") or [None, None, None])[:2] == ["python", "-m"]]


def test_compose_runs_every_chart_component(workloads: dict[str, dict[str, Any]]) -> None:
    assert set(workloads) <= set(compose_services())


@pytest.mark.parametrize("service", compose_services())
def test_compose_service_matches_its_chart_workload(workloads: dict[str, dict[str, Any]], service: str) -> None:
    container = workloads[service]["containers"][0]
    compose = COMPOSE["services"][service]
    assert compose["command"] == container["command"]
    names = set(compose.get("environment", {})) - NOT_SETTINGS
    # the component's own names, plus the shared infrastructure names compose gives everyone
    chart_names = {item["name"] for item in container["env"]} | {
        item["name"] for spec in workloads.values() for item in spec["containers"][0]["env"]
        if not item["name"].startswith(tuple(PREFIXES.values()))}
    assert names <= chart_names, f"compose sets names the chart does not: {names - chart_names}"
    own = {name for name in names if name.startswith(PREFIXES[service])}
    assert {f"{PREFIXES[service]}HOST", f"{PREFIXES[service]}PORT"} <= own


def test_the_image_runs_as_the_charts_uid(workloads: dict[str, dict[str, Any]]) -> None:
    uid = re.search(r"useradd[^\n]*--uid (\d+)", DOCKERFILE)
    assert uid and "USER bkn" in DOCKERFILE
    for spec in workloads.values():
        assert spec["securityContext"]["runAsUser"] == int(uid.group(1))


def test_the_image_installs_every_components_package(workloads: dict[str, dict[str, Any]]) -> None:
    installed = set(re.findall(r"-e services/([a-z-]+)", DOCKERFILE))
    assert set(workloads) <= installed
    assert "-e libs/clctl" in DOCKERFILE  # the hook Jobs run clctl from the same image
