"""Helpers for the chart's tests: the tools scripts/k8s-tools.sh installs, and `helm template`."""

from __future__ import annotations

import importlib
import inspect
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import AliasChoices

from bkn_common.infra.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "context-loader"
PRODUCTION = ROOT / "deploy" / "helm" / "examples" / "production.yaml"
REQUIRED = CHART / "tests" / "values" / "required.yaml"
HERE = Path(__file__).resolve().parent
ALL_TOGGLES = HERE / "values" / "all-toggles.yaml"
# The Kubernetes versions scripts/k8s-tools.sh writes schemas for (oldest supported, newest).
KUBE_VERSIONS = ("1.30.0", "1.36.0")
SERVICE_MONITOR_API = "monitoring.coreos.com/v1"


@cache
def tools_env() -> dict[str, str]:
    """The environment with helm, kubeconform, kube-score and the schemas (installed if missing)."""
    script = ROOT / "scripts" / "k8s-tools.sh"
    subprocess.run([str(script)], check=True, cwd=ROOT)
    dump = subprocess.run(
        ["bash", "-c", f'eval "$({script} env)" && env -0'],
        check=True, capture_output=True, cwd=ROOT,
    ).stdout.decode()
    env = dict(item.split("=", 1) for item in dump.split("\0") if "=" in item)
    assert env["K8S_SCHEMA_VERSIONS"].split() == list(KUBE_VERSIONS), "keep KUBE_VERSIONS in step with k8s-tools.sh"
    return env


def run(args: list[str], *, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, env=tools_env(), capture_output=True, text=True, input=stdin, cwd=ROOT)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(args[:3])} ... exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


def template_args(
    *values: Path, sets: dict[str, str] | None = None, kube_version: str = KUBE_VERSIONS[-1],
    api_versions: tuple[str, ...] = (), release: str = "cl", namespace: str = "mesh",
) -> list[str]:
    args = ["helm", "template", release, str(CHART), "--namespace", namespace, "--kube-version", kube_version]
    for path in values:
        args += ["-f", str(path)]
    for key, value in (sets or {}).items():
        args += ["--set", f"{key}={value}"]
    for api in api_versions:
        args += ["--api-versions", api]
    return args


def render(*values: Path, **kwargs: Any) -> str:
    return run(template_args(*values, **kwargs)).stdout


def documents(manifest: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(manifest) if doc]


def settings_names(module: str) -> set[str]:
    """Every environment name the module's settings class reads."""
    settings = importlib.import_module(f"{module}.settings")
    cls = next(obj for obj in vars(settings).values()
               if inspect.isclass(obj) and issubclass(obj, ServiceSettings) and obj is not ServiceSettings
               and obj.__module__ == settings.__name__)
    prefix = str(cls.model_config.get("env_prefix", "")).upper()
    names = set()
    for field_name, field in cls.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names |= {str(choice).upper() for choice in alias.choices}
        elif isinstance(alias, str):
            names.add(alias.upper())
        else:
            names.add(prefix + field_name.upper())
    return names
