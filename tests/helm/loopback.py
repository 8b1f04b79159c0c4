"""Running a rendered chart on 127.0.0.1: each workload's and Job's command, args and env from
the manifests, started as local processes.

Only what Kubernetes itself would provide is done here: each volume (emptyDir, projected
Secret, ConfigMap) becomes a folder filled from the rendered objects, and a path under a mount
point in an env value is rewritten to that folder; a StatefulSet pod's index comes from its
replica number. Pods share one loopback address here, so replica i > 0 of a workload listens on
its port + 20·i (the one env value changed). The processes get no other environment than the
manifest's (plus PATH to the project's venv, as the image's PATH has /opt/venv/bin).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helm.chart import ROOT
from tests.support.infra import Infra

# devmesh's port offsets (the names every engineer shares)
OFFSETS = {"gateway": 0, "capabilityIndex": 2, "toolExecutor": 3, "traceRecorder": 4, "ontologyQuery": 5,
           "knowledgeBase": 6}
REPLICA_PORT_STEP = 20


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
                    "knowledgeBases": [{"path": "examples/knowledge_base", "kb": "handbook", "readers": ["dev"]}]},
        **ports,
        "knowledgeBase": {**ports["knowledgeBase"], "enabled": True},
    }


class Pod:
    """One pod's first container as a local process: its folders, env and command."""

    def __init__(self, rendered: Rendered, spec: dict[str, Any], folder: Path, index: int = 0) -> None:
        self.spec, self.container, self.index = spec, spec["containers"][0], index
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
            # the one field the chart reads: a StatefulSet pod's index
            assert item["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.labels['apps.kubernetes.io/pod-index']"
            return str(self.index)
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

    @property
    def port(self) -> int:
        """Replica i listens on the container port + 20·i (pods share one loopback address here)."""
        return int(self.container["ports"][0]["containerPort"]) + REPLICA_PORT_STEP * self.index

    def process_env(self) -> dict[str, str]:
        env = {"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin", "HOME": str(self.mounts["/tmp"]),
               "TMPDIR": str(self.mounts["/tmp"]), **self.env}
        if self.index:
            port_names = [name for name, value in self.env.items()
                          if name.endswith("_PORT") and value == str(self.container["ports"][0]["containerPort"])]
            assert len(port_names) == 1, port_names
            env[port_names[0]] = str(self.port)
        return env


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


def wait_until(what: str, check: Any, processes: dict[str, subprocess.Popen[bytes]], timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        dead = {name: p.returncode for name, p in processes.items() if p.poll() is not None}
        assert not dead, f"exited while waiting for {what}: {dead}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


@contextmanager
def running_chart(chart: Rendered, folder: Path) -> Iterator[dict[str, Pod]]:
    """The topics Job, every replica of every workload until each /readyz is green, then the
    bundles Job; stops every process it started (by process group) on the way out."""
    topics = run_job(chart, "cl-context-loader-topics", folder)
    assert topics.returncode == 0, topics.stdout + topics.stderr
    processes: dict[str, subprocess.Popen[bytes]] = {}
    pods: dict[str, Pod] = {}
    try:
        for workload in chart.workloads():
            for index in range(int(workload["spec"].get("replicas", 1))):
                name = f"{workload['metadata']['name']}-{index}"
                pod = Pod(chart, workload["spec"]["template"]["spec"], folder / name, index)
                log = (folder / f"{name}.log").open("wb")
                processes[name] = subprocess.Popen(pod.command(), env=pod.process_env(), cwd=ROOT, stdout=log,
                                                   stderr=subprocess.STDOUT, start_new_session=True)
                pods[name] = pod
        for name, pod in pods.items():
            path = pod.container["readinessProbe"]["httpGet"]["path"]
            wait_until(f"{name} {path}", lambda pod=pod, path=path: get(f"http://127.0.0.1:{pod.port}{path}")[0] == 200,
                       processes)
        bundles = run_job(chart, "cl-context-loader-bundles", folder)
        assert bundles.returncode == 0, bundles.stdout + bundles.stderr
        yield pods
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
