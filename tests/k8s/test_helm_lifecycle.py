"""Issue 12: the chart's whole life on a real kube-apiserver (``make k8s-test``).

install --wait -> test -> upgrade (a changed value rolls every Deployment) -> rollback ->
uninstall (nothing of the release left), in a namespace that enforces Pod Security
``restricted``. The tests run in file order and share the release; each checks one step.
The node is kwok's: pods are scheduled and reported Ready (or Succeeded for the hook Jobs and
the ``helm test`` pod) but no container runs, so what is proven is what the API server,
its admission, the controllers and Helm decide, not the services' behaviour (tests/helm's
"chart drives a real run" covers that).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.k8s.conftest import ROOT, Cluster

CHART = ROOT / "deploy" / "helm" / "context-loader"
VALUES = Path(__file__).resolve().parent / "values-fake-cluster.yaml"
NAMESPACE = "context-loader-k8s-test"
RELEASE = "cl"
INSTANCE = f"app.kubernetes.io/instance={RELEASE}"
WAIT = "5m"

# what each step saw, for the steps after it
seen: dict[str, Any] = {}


def kubectl_json(cluster: Cluster, *args: str) -> Any:
    return json.loads(cluster.run("kubectl", "-n", NAMESPACE, *args, "-o", "json").stdout)


def deployments(cluster: Cluster) -> dict[str, dict[str, Any]]:
    found = kubectl_json(cluster, "get", "deployments", "-l", INSTANCE)["items"]
    return {d["metadata"]["name"]: d for d in found}


def statefulsets(cluster: Cluster) -> dict[str, dict[str, Any]]:
    """trace-recorder is a StatefulSet (each replica owns a share of the partitions by pod index)."""
    found = kubectl_json(cluster, "get", "statefulsets", "-l", INSTANCE)["items"]
    return {s["metadata"]["name"]: s for s in found}


def current_template_hashes(cluster: Cluster) -> dict[str, str]:
    """Deployment -> pod-template-hash of its ReplicaSet that has the Deployment's revision."""
    sets = kubectl_json(cluster, "get", "replicasets", "-l", INSTANCE)["items"]
    out = {}
    for name, deployment in deployments(cluster).items():
        revision = deployment["metadata"]["annotations"]["deployment.kubernetes.io/revision"]
        (current,) = [
            rs for rs in sets
            if rs["metadata"]["ownerReferences"][0]["name"] == name
            and rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == revision
        ]
        out[name] = current["metadata"]["labels"]["pod-template-hash"]
    return out


def env_of(deployment: dict[str, Any], name: str) -> str | None:
    for container in deployment["spec"]["template"]["spec"]["containers"]:
        for item in container.get("env", []):
            if item["name"] == name:
                return str(item.get("value"))
    return None


def assert_rolled_out(cluster: Cluster) -> None:
    """Every Deployment observed its spec and has all replicas updated and ready."""
    for name, d in deployments(cluster).items():
        status = d["status"]
        assert status.get("observedGeneration") == d["metadata"]["generation"], name
        wanted = d["spec"]["replicas"]
        assert status.get("updatedReplicas") == wanted and status.get("readyReplicas") == wanted, (name, status)
    for name, s in statefulsets(cluster).items():
        status = s["status"]
        assert status.get("observedGeneration") == s["metadata"]["generation"], name
        assert status.get("currentRevision") == status.get("updateRevision"), (name, status)
        assert status.get("readyReplicas") == s["spec"]["replicas"], (name, status)
    pods = kubectl_json(cluster, "get", "pods", "-l", INSTANCE)["items"]
    hashes = current_template_hashes(cluster)
    revisions = {s["status"]["updateRevision"] for s in statefulsets(cluster).values()}
    running = [p for p in pods if p["status"].get("phase") == "Running"]
    assert running and all(
        p["metadata"]["labels"].get("pod-template-hash") in hashes.values()
        or p["metadata"]["labels"].get("controller-revision-hash") in revisions
        for p in running
    )


def helm(cluster: Cluster, step: str, *args: str) -> str:
    return cluster.timed(f"helm {step}", "helm", *args, "--namespace", NAMESPACE).stdout


def test_the_namespace_enforces_pod_security_restricted(cluster: Cluster) -> None:
    cluster.run("kubectl", "create", "namespace", NAMESPACE)
    cluster.run("kubectl", "label", "namespace", NAMESPACE, "pod-security.kubernetes.io/enforce=restricted")
    # a pod without the restricted profile's security context (non-root, seccomp, dropped
    # capabilities) is refused by Pod Security admission itself
    refused = cluster.run(
        "kubectl", "-n", NAMESPACE, "run", "unhardened-probe", "--image=busybox", "--restart=Never",
        "--dry-run=server", check=False,
    )
    assert refused.returncode != 0 and 'violates PodSecurity "restricted' in refused.stderr, refused.stderr


def test_install_waits_until_every_deployment_is_ready(cluster: Cluster) -> None:
    helm(cluster, "install", "install", RELEASE, str(CHART), "-f", str(VALUES), "--wait", "--timeout", WAIT)
    found = deployments(cluster)
    assert {n.removeprefix(f"{RELEASE}-context-loader-") for n in found} >= {
        "gateway", "capability-index", "tool-executor", "ontology-query"
    }
    assert set(statefulsets(cluster)) == {f"{RELEASE}-context-loader-trace-recorder"}
    assert_rolled_out(cluster)
    # the HPA raises the gateway from the Deployment's default of 1 to its minimum of 2
    gateway = f"{RELEASE}-context-loader-gateway"
    deadline = time.monotonic() + 180
    while deployments(cluster)[gateway]["status"].get("readyReplicas") != 2 and time.monotonic() < deadline:
        time.sleep(2)
    assert deployments(cluster)[gateway]["status"].get("readyReplicas") == 2
    found = deployments(cluster)
    kinds = {i["kind"] for i in kubectl_json(cluster, "get", "hpa,pdb,networkpolicy,serviceaccount,service",
                                             "-l", INSTANCE)["items"]}
    assert kinds >= {"HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "ServiceAccount", "Service"}
    # the ServiceMonitor is left out: this API server has no monitoring.coreos.com/v1
    manifest = cluster.run("helm", "get", "manifest", RELEASE, "--namespace", NAMESPACE).stdout
    assert "kind: ServiceMonitor" not in manifest
    seen["generations"] = {n: d["metadata"]["generation"] for n, d in found.items()}
    seen["hashes"] = current_template_hashes(cluster)
    seen["revisions"] = {n: s["status"]["updateRevision"] for n, s in statefulsets(cluster).items()}


def test_helm_test_pod_succeeds(cluster: Cluster) -> None:
    out = helm(cluster, "test", "test", RELEASE, "--timeout", WAIT)
    assert "Phase:          Succeeded" in out or "Phase: Succeeded" in out, out


def test_upgrade_with_a_changed_value_rolls_every_deployment(cluster: Cluster) -> None:
    helm(cluster, "upgrade", "upgrade", RELEASE, str(CHART), "-f", str(VALUES), "--set", "logLevel=DEBUG",
         "--wait", "--timeout", WAIT)
    found = deployments(cluster)
    hashes = current_template_hashes(cluster)
    for name, deployment in found.items():
        assert deployment["metadata"]["generation"] > seen["generations"][name], name
        assert hashes[name] != seen["hashes"][name], name
        assert env_of(deployment, "LOG_LEVEL") == "DEBUG", name
    for name, s in statefulsets(cluster).items():
        assert s["status"]["updateRevision"] != seen["revisions"][name], name
        assert env_of(s, "LOG_LEVEL") == "DEBUG", name
    assert_rolled_out(cluster)
    history = json.loads(cluster.run("helm", "history", RELEASE, "--namespace", NAMESPACE, "-o", "json").stdout)
    assert [h["status"] for h in history] == ["superseded", "deployed"]


def test_rollback_restores_the_first_revisions_pods(cluster: Cluster) -> None:
    helm(cluster, "rollback", "rollback", RELEASE, "1", "--wait", "--timeout", WAIT)
    found = deployments(cluster)
    hashes = current_template_hashes(cluster)
    for name, deployment in found.items():
        assert env_of(deployment, "LOG_LEVEL") == "INFO", name
        assert hashes[name] == seen["hashes"][name], name  # the first ReplicaSet again
    for name, s in statefulsets(cluster).items():
        assert env_of(s, "LOG_LEVEL") == "INFO", name
    assert_rolled_out(cluster)
    history = json.loads(cluster.run("helm", "history", RELEASE, "--namespace", NAMESPACE, "-o", "json").stdout)
    assert [h["revision"] for h in history] == [1, 2, 3] and history[-1]["status"] == "deployed"


def test_uninstall_leaves_nothing_of_the_release(cluster: Cluster) -> None:
    helm(cluster, "uninstall", "uninstall", RELEASE, "--wait", "--timeout", WAIT)
    kinds = cluster.run("kubectl", "api-resources", "--verbs=list", "--namespaced", "-o", "name").stdout.split()
    kinds = [k for k in kinds if k not in ("events", "events.events.k8s.io")]
    left = kubectl_json(cluster, "get", ",".join(kinds))["items"]
    ours = [
        f"{i['kind']}/{i['metadata']['name']}" for i in left
        if RELEASE in i["metadata"]["name"]
        or i["metadata"].get("labels", {}).get("app.kubernetes.io/instance") == RELEASE
    ]
    assert ours == [], ours
    cluster_kinds = cluster.run("kubectl", "api-resources", "--verbs=list", "--namespaced=false", "-o", "name").stdout
    labelled = json.loads(cluster.run("kubectl", "get", ",".join(cluster_kinds.split()), "-l", INSTANCE,
                                      "-o", "json").stdout)["items"]
    assert labelled == []


@pytest.fixture(scope="module", autouse=True)
def _namespace_removed(cluster: Cluster) -> Any:
    yield
    cluster.run("kubectl", "delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=false", check=False)
