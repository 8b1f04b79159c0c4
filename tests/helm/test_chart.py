"""The Helm chart, offline: `helm lint --strict`, the helm-unittest suites, the rendered manifests
validated with kubeconform -strict against two Kubernetes versions (and the ServiceMonitor CRD),
and kube-score with a short allowlist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.helm.chart import (
    ALL_TOGGLES,
    CHART,
    KUBE_VERSIONS,
    PRODUCTION,
    REQUIRED,
    SERVICE_MONITOR_API,
    documents,
    render,
    run,
    settings_names,
    template_args,
    tools_env,
)

# name → (values files, API versions the cluster serves)
VALUE_SETS: dict[str, tuple[tuple[Path, ...], tuple[str, ...]]] = {
    "defaults": ((REQUIRED,), ()),
    "production": ((PRODUCTION,), (SERVICE_MONITOR_API,)),
    "all-toggles": ((ALL_TOGGLES,), (SERVICE_MONITOR_API,)),
}

# kube-score checks switched off, each for a reason.
KUBE_SCORE_ALLOWLIST: dict[str, dict[str, str]] = {
    "*": {
        # Release tags are immutable; IfNotPresent keeps a restarted node from depending on the
        # registry. `image.pullPolicy: Always` is one value away for those who want it.
        "container-image-pull-policy": "immutable release tags",
    },
    "defaults": {
        # The defaults are a small first install (one replica each); production.yaml runs >= 2.
        "deployment-replicas": "one replica per component by default",
        # trace-recorder on SQLite is one replica with Recreate, so two pods never hold two
        # diverging stores; on PostgreSQL it rolls like the others.
        "deployment-strategy": "trace-recorder on SQLite recreates",
    },
}

SUITES = sorted(path.name for path in (CHART / "tests").glob("*_test.yaml"))


@pytest.mark.parametrize("values", sorted(VALUE_SETS))
def test_helm_lint_strict(values: str) -> None:
    files, _ = VALUE_SETS[values]
    args = ["helm", "lint", "--strict", str(CHART), "--kube-version", KUBE_VERSIONS[-1]]
    for path in files:
        args += ["-f", str(path)]
    result = run(args)
    assert "1 chart(s) linted, 0 chart(s) failed" in result.stdout


def test_the_defaults_alone_fail_naming_the_required_value() -> None:
    result = run(template_args(), check=False)
    assert result.returncode != 0
    assert "kafka.bootstrapServers is required" in result.stderr


@pytest.fixture(scope="module")
def unittest_report(tmp_path_factory: pytest.TempPathFactory) -> ET.Element:
    report = tmp_path_factory.mktemp("helm-unittest") / "junit.xml"
    result = run(["helm", "unittest", "--output-type", "JUnit", "--output-file", str(report),
                  "-f", "tests/*_test.yaml", str(CHART)], check=False)
    assert report.exists(), result.stdout + result.stderr
    return ET.parse(report).getroot()


@pytest.mark.parametrize("suite", SUITES)
def test_helm_unittest_suite(unittest_report: ET.Element, suite: str) -> None:
    name = yaml.safe_load((CHART / "tests" / suite).read_text())["suite"]
    found = [s for s in unittest_report.iter("testsuite") if s.get("name") == name]
    assert found, f"{suite} is missing from the helm-unittest report"
    cases = [case for s in found for case in s.iter("testcase")]
    failures = [(case.get("name"), (f.get("message") or "") + (f.text or ""))
                for case in cases for f in [*case.iter("failure"), *case.iter("error")]]
    assert cases, f"{suite} ran no test"
    assert not failures, "\n".join(f"{name}: {text}" for name, text in failures)


def test_every_suite_ran(unittest_report: ET.Element) -> None:
    total = sum(int(s.get("tests", "0")) for s in unittest_report.iter("testsuite"))
    print(f"helm-unittest: {total} tests in {len(SUITES)} suites")
    assert total >= 60


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("values", sorted(VALUE_SETS))
def test_kubeconform_strict(values: str, kube_version: str) -> None:
    files, apis = VALUE_SETS[values]
    manifest = render(*files, kube_version=kube_version, api_versions=apis)
    kinds = {doc["kind"] for doc in documents(manifest)}
    result = kubeconform(manifest, kube_version)
    resources = result["resources"]
    assert len(resources) == len(documents(manifest))
    assert {r["status"] for r in resources} == {"statusValid"}, json.dumps(resources, indent=1)
    if apis:
        assert "ServiceMonitor" in kinds


def test_kubeconform_is_strict_and_offline() -> None:
    """An unknown field in a rendered Deployment and in the ServiceMonitor is refused."""
    manifest = render(PRODUCTION, api_versions=(SERVICE_MONITOR_API,))
    broken = manifest.replace("revisionHistoryLimit: 5", "revisionHistoryLimit: 5\n  replicaz: 2", 1)
    broken = broken.replace("path: /metrics", "path: /metrics\n      scrapeEvery: 1s", 1)
    resources = kubeconform(broken, KUBE_VERSIONS[0], check=False)["resources"]
    invalid = {(r["kind"], r["status"]) for r in resources if r["status"] != "statusValid"}
    assert invalid == {("Deployment", "statusInvalid"), ("ServiceMonitor", "statusInvalid")}


def kubeconform(manifest: str, kube_version: str, *, check: bool = True) -> dict:  # type: ignore[type-arg]
    schemas = tools_env()["K8S_SCHEMAS"]
    result = run(["kubeconform", "-strict", "-output", "json", "-verbose",
                  "-kubernetes-version", kube_version, "-schema-location", schemas,
                  "-schema-location", schemas + "/crds/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"],
                 stdin=manifest, check=False)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    report: dict = json.loads(result.stdout)  # type: ignore[type-arg]
    return report


@pytest.mark.parametrize("values", sorted(VALUE_SETS))
def test_kube_score(values: str) -> None:
    files, apis = VALUE_SETS[values]
    manifest = render(*files, api_versions=apis)
    ignored = {**KUBE_SCORE_ALLOWLIST["*"], **KUBE_SCORE_ALLOWLIST.get(values, {})}
    args = ["kube-score", "score", "-", "--output-format", "ci", "--exit-one-on-warning"]
    for check in ignored:
        args += ["--ignore-test", check]
    result = run(args, stdin=manifest, check=False)
    problems = [line for line in result.stdout.splitlines() if line.startswith(("[CRITICAL]", "[WARNING]"))]
    assert not problems, "\n".join(problems)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("values", sorted(VALUE_SETS))
def test_every_env_name_is_one_its_settings_class_reads(values: str) -> None:
    """The chart never invents a second name: each env name of a service's container is a field
    (or alias) of that service's settings class; the clctl Jobs' of clctl's, besides bundles.env."""
    files, apis = VALUE_SETS[values]
    docs = documents(render(*files, api_versions=apis))
    bundle_inputs = {key for path in files for key in
                     (yaml.safe_load(path.read_text()).get("bundles", {}).get("env") or {})}
    checked = 0
    for doc in docs:
        if doc["kind"] not in ("Deployment", "StatefulSet", "Job"):
            continue
        container = doc["spec"]["template"]["spec"]["containers"][0]
        module = container["command"][2] if container["command"][:2] == ["python", "-m"] else "clctl"
        names = {item["name"] for item in container["env"]}
        unknown = names - settings_names(module) - (bundle_inputs if doc["kind"] == "Job" else set())
        assert not unknown, f"{doc['metadata']['name']} sets names {module}'s settings never read: {unknown}"
        checked += 1
    assert checked >= 6
