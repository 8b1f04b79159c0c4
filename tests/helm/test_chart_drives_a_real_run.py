"""The chart drives a real run: render it with a loopback values file, take each workload's and
Job's command, args and env from the rendered manifests, and start exactly those processes on
127.0.0.1 against the real Kafka and Redis. Every /readyz answers 200, an authenticated search
goes through the gateway, and the helm test pod's own check passes.

Only what Kubernetes itself would provide is done here: each volume (emptyDir, projected
Secret, ConfigMap) becomes a folder filled from the rendered objects, and a path under a mount
point in an env value is rewritten to that folder. The processes get no other environment than
the manifest's (plus PATH to the project's venv, as the image's PATH has /opt/venv/bin).
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.util
import json
import os
import secrets
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import devmesh
import pytest
import yaml

from tests.helm.chart import ROOT, documents, render, settings_names
from tests.support.infra import Infra, real_infra

pytestmark = pytest.mark.integration

# devmesh's port offsets (the names every engineer shares)
OFFSETS = {"gateway": 0, "capabilityIndex": 2, "toolExecutor": 3, "traceRecorder": 4, "ontologyQuery": 5,
           "knowledgeBase": 6}
KNOWLEDGE_BASE = importlib.util.find_spec("knowledge_base") is not None


@dataclass
class Rendered:
    docs: list[dict[str, Any]]
    dev_key: str
    base: int

    def kind(self, kind: str) -> list[dict[str, Any]]:
        return [doc for doc in self.docs if doc["kind"] == kind]

    def workloads(self) -> list[dict[str, Any]]:
        return [doc for doc in self.docs if doc["kind"] in ("Deployment", "StatefulSet")]

    def named(self, kind: str, name: str) -> dict[str, Any]:
        return next(doc for doc in self.kind(kind) if doc["metadata"]["name"] == name)

    def secret(self, name: str, key: str) -> str:
        doc = self.named("Secret", name)
        return base64.b64decode(doc["data"][key]).decode()

    def config_map(self, name: str, key: str) -> str:
        return str(self.named("ConfigMap", name)["data"][key])

    def port(self, component: str) -> int:
        return self.base + OFFSETS[component]


def loopback_values(infra: Infra, base: int, dev_key: str) -> dict[str, Any]:
    ports: dict[str, dict[str, Any]] = {key: {"port": base + offset} for key, offset in OFFSETS.items()}
    ports["gateway"]["service"] = {"port": base}
    for key in ("capabilityIndex", "toolExecutor", "ontologyQuery", "knowledgeBase"):
        ports[key]["checkpoints"] = {"enabled": True, "intervalSeconds": 5}
    return {
        "kafka": {"bootstrapServers": infra.kafka, "topicPrefix": f"helm{uuid.uuid4().hex[:10]}."},
        "redis": {"url": infra.redis},
        "listenAddress": "127.0.0.1",
        "internalHost": "127.0.0.1",
        "identity": {
            "accounts": [{"id": "dev", "kind": "user",
                          "appKeys": [{"keyId": "dev-1", "sha256": hashlib.sha256(dev_key.encode()).hexdigest()}]}],
            # the demo bundle grants `viewer` view_detail on supply_chain: the helm test's search finds it
            "testAccount": {"enabled": True, "id": "viewer"},
        },
        "bundles": {"enabled": True, "paths": ["examples/supply_chain", "examples/other_network"],
                    "knowledgeBases": [{"path": "examples/knowledge_base", "kb": "handbook", "readers": ["dev"]}]
                    if KNOWLEDGE_BASE else []},
        **ports,
        "knowledgeBase": {**ports["knowledgeBase"], "enabled": KNOWLEDGE_BASE},
    }


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Rendered, Infra]]:
    with real_infra() as infra:
        base, dev_key = devmesh.free_port_block(), "bak_" + secrets.token_urlsafe(32)
        values = tmp_path_factory.mktemp("values") / "loopback.yaml"
        values.write_text(yaml.safe_dump(loopback_values(infra, base, dev_key)))
        yield Rendered(documents(render(values)), dev_key, base), infra


class Pod:
    """One pod's first container as a local process: its folders, env and command."""

    def __init__(self, rendered: Rendered, spec: dict[str, Any], folder: Path) -> None:
        self.spec, self.container = spec, spec["containers"][0]
        self.mounts: dict[str, Path] = {}
        volumes = {volume["name"]: volume for volume in spec.get("volumes", [])}
        for mount in self.container.get("volumeMounts", []):
            local = folder / mount["name"]
            local.mkdir(parents=True, exist_ok=True)
            self._fill(rendered, volumes[mount["name"]], local)
            self.mounts[mount["mountPath"]] = local
        self.env = {item["name"]: self._value(rendered, item) for item in self.container.get("env", [])}
        stray = {k: v for k, v in self.env.items() if v.startswith(("/var/lib/context-loader", "/etc/context-loader"))}
        assert not stray, f"paths outside every mounted volume: {stray}"

    def _fill(self, rendered: Rendered, volume: dict[str, Any], local: Path) -> None:
        sources: list[tuple[str, str, list[dict[str, str]]]] = []
        if "projected" in volume:
            sources = [("Secret", s["secret"]["name"], s["secret"]["items"]) for s in volume["projected"]["sources"]]
        elif "configMap" in volume:
            sources = [("ConfigMap", volume["configMap"]["name"], volume["configMap"]["items"])]
        else:
            assert "emptyDir" in volume, volume
        for kind, name, items in sources:
            for item in items:
                target = local / item["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                read = rendered.secret if kind == "Secret" else rendered.config_map
                target.write_text(read(name, item["key"]))

    def _value(self, rendered: Rendered, item: dict[str, Any]) -> str:
        if "fieldRef" in item.get("valueFrom", {}):
            # the one field the chart reads: a StatefulSet pod's index (this run has one pod each)
            assert item["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.labels['apps.kubernetes.io/pod-index']"
            return "0"
        if "valueFrom" in item:
            ref = item["valueFrom"]["secretKeyRef"]
            return rendered.secret(ref["name"], ref["key"])
        value = str(item["value"])
        for mount_path, local in self.mounts.items():
            if value == mount_path or value.startswith(mount_path + "/"):
                return str(local) + value[len(mount_path):]
        return value

    def command(self) -> list[str]:
        return [*self.container["command"], *self.container.get("args", [])]

    def process_env(self) -> dict[str, str]:
        return {"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin", "HOME": str(self.mounts["/tmp"]),
                "TMPDIR": str(self.mounts["/tmp"]), **self.env}


def run_job(rendered: Rendered, name: str, folder: Path) -> subprocess.CompletedProcess[str]:
    pod = Pod(rendered, rendered.named("Job", name)["spec"]["template"]["spec"], folder / name)
    return subprocess.run(pod.command(), env=pod.process_env(), cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)


def get(url: str, key: str | None = None, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


def wait_until(what: str, check: Any, processes: dict[str, subprocess.Popen[bytes]], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        dead = {name: p.returncode for name, p in processes.items() if p.poll() is not None}
        assert not dead, f"exited while waiting for {what}: {dead}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def running(rendered: tuple[Rendered, Infra], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rendered]:
    chart, _ = rendered
    folder = tmp_path_factory.mktemp("pods")
    topics = run_job(chart, "cl-context-loader-topics", folder)
    assert topics.returncode == 0, topics.stdout + topics.stderr
    processes: dict[str, subprocess.Popen[bytes]] = {}
    try:
        for deployment in chart.workloads():
            name = deployment["metadata"]["name"]
            pod = Pod(chart, deployment["spec"]["template"]["spec"], folder / name)
            log = (folder / f"{name}.log").open("wb")
            processes[name] = subprocess.Popen(pod.command(), env=pod.process_env(), cwd=ROOT, stdout=log,
                                               stderr=subprocess.STDOUT, start_new_session=True)
        for deployment in chart.workloads():
            container = deployment["spec"]["template"]["spec"]["containers"][0]
            port = container["ports"][0]["containerPort"]
            path = container["readinessProbe"]["httpGet"]["path"]
            wait_until(f"{deployment['metadata']['name']} {path}",
                       lambda port=port, path=path: get(f"http://127.0.0.1:{port}{path}")[0] == 200, processes)
        bundles = run_job(chart, "cl-context-loader-bundles", folder)
        assert bundles.returncode == 0, bundles.stdout + bundles.stderr
        yield chart
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes.values():
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def test_every_workload_reads_only_names_its_settings_class_reads(rendered: tuple[Rendered, Infra]) -> None:
    chart, _ = rendered
    deployments = chart.workloads()
    assert len(deployments) == (6 if KNOWLEDGE_BASE else 5)
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

    wait_until("the demo network's capabilities", searched, {}, timeout=60)
    assert any("fx" in json.dumps(hit).lower() for hit in found)
    status, _ = get(url, "bak_" + "x" * 43, body)
    assert status == 401


def test_the_helm_test_pod_passes(running: Rendered, tmp_path: Path) -> None:
    pod = Pod(running, running.named("Pod", "cl-context-loader-test")["spec"], tmp_path)
    result = subprocess.run(pod.command(), env=pod.process_env(), cwd=ROOT, capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "search_capabilities: 200" in result.stdout
