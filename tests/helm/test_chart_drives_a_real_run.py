"""The chart drives a real run: render it with a loopback values file, take each workload's and
Job's command, args and env from the rendered manifests, and start exactly those processes on
127.0.0.1 against the real Kafka and Redis (tests/helm/loopback.py says what is adapted). Every
/readyz answers 200, an authenticated search goes through the gateway, and the helm test pod's
own check passes.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import devmesh
import pytest
import yaml

from tests.helm.chart import ROOT, documents, render, settings_names
from tests.helm.loopback import (
    Pod,
    Rendered,
    get,
    loopback_values,
    running_chart,
    wait_until,
)
from tests.support.infra import Infra, real_infra

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Rendered, Infra]]:
    with real_infra() as infra:
        base, dev_key = devmesh.free_port_block(), "bak_" + secrets.token_urlsafe(32)
        values = tmp_path_factory.mktemp("values") / "loopback.yaml"
        values.write_text(yaml.safe_dump(loopback_values(infra, base, dev_key)))
        yield Rendered(documents(render(values)), dev_key, base), infra


@pytest.fixture(scope="module")
def running(rendered: tuple[Rendered, Infra], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rendered]:
    chart, _ = rendered
    with running_chart(chart, tmp_path_factory.mktemp("pods")):
        yield chart


def test_every_workload_reads_only_names_its_settings_class_reads(rendered: tuple[Rendered, Infra]) -> None:
    chart, _ = rendered
    deployments = chart.workloads()
    assert len(deployments) == 6
    for deployment in deployments:
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert container["command"][:2] == ["python", "-m"]
        names = {item["name"] for item in container["env"]}
        unknown = names - settings_names(container["command"][2])
        assert not unknown, f"{deployment['metadata']['name']} sets names its settings never read: {unknown}"
    for job in chart.kind("Job"):  # clctl; bundles.env (bundle inputs, `${VAR}`) is empty here
        names = {item["name"] for item in job["spec"]["template"]["spec"]["containers"][0]["env"]}
        assert not names - settings_names("clctl"), job["metadata"]["name"]


def test_every_readyz_is_green(running: Rendered) -> None:
    for deployment in running.workloads():
        port = deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"]
        status, body = get(f"http://127.0.0.1:{port}/readyz")
        assert status == 200, (deployment["metadata"]["name"], body)


def test_an_authenticated_search_goes_through_the_gateway(running: Rendered) -> None:
    url = f"http://127.0.0.1:{running.port('gateway')}/api/agent-retrieval/v1/kn/search_capabilities"
    body = {"kn_id": "supply_chain", "query": "汇率"}
    found: list[Any] = []

    def searched() -> bool:
        status, answer = get(url, running.dev_key, body)
        if status == 200:
            found[:] = json.loads(answer).get("capabilities", [])
        return bool(found)

    wait_until("the demo network's capabilities", searched, {}, timeout=180)
    assert any("fx" in json.dumps(hit).lower() for hit in found)
    status, _ = get(url, "bak_" + "x" * 43, body)
    assert status == 401


def test_the_helm_test_pod_passes(running: Rendered, tmp_path: Path) -> None:
    pod = Pod(running, running.named("Pod", "cl-context-loader-test")["spec"], tmp_path)
    result = subprocess.run(pod.command(), env=pod.process_env(), cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "search_capabilities: 200" in result.stdout
