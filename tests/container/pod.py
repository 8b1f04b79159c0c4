"""A pod's container as podman runs it: the securityContext `helm template` renders, turned
into the runtime's flags the way a Kubernetes node (containerd + runc) applies it.

- runAsUser/runAsGroup -> --user; capabilities drop/add -> --cap-drop/--cap-add;
  allowPrivilegeEscalation false -> no-new-privileges; readOnlyRootFilesystem -> --read-only
  (without podman's extra tmpfs mounts: only the pod's own volumes are writable);
- procMount Default -> the masked and read-only /proc and /sys paths containerd sets (podman's
  defaults plus containerd's extra masked paths);
- seccompProfile RuntimeDefault -> containerd's profile for a container with no capabilities
  (deploy/seccomp/runtime-default.json, never podman's looser default); Localhost -> the file
  the chart ships for that path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_DEFAULT = ROOT / "deploy" / "seccomp" / "runtime-default.json"
CHART_PROFILE = ROOT / "deploy" / "helm" / "context-loader" / "files" / "tool-executor-seccomp.json"
# containerd's default masked paths (oci.WithMaskedPaths) that podman's default list lacks
CONTAINERD_EXTRA_MASKED = ("/proc/asound", "/sys/devices/virtual/powercap")


class UnsupportedContext(ValueError):
    """A securityContext field this translation does not know: never silently dropped."""


def effective_context(pod: dict[str, Any], container: dict[str, Any]) -> dict[str, Any]:
    """The pod's securityContext overlaid with the container's (the container wins)."""
    keys = ("runAsUser", "runAsGroup", "runAsNonRoot", "seccompProfile")
    pod_context = {k: v for k, v in pod.get("securityContext", {}).items() if k in keys}
    return {**pod_context, **container.get("securityContext", {})}


def seccomp_file(profile: dict[str, str]) -> Path:
    if profile.get("type") == "RuntimeDefault":
        return RUNTIME_DEFAULT
    if profile.get("type") == "Localhost" and profile.get("localhostProfile", "").endswith(
            ("tool-executor-seccomp.json", "-tool-executor.json")):
        return CHART_PROFILE
    raise UnsupportedContext(f"seccompProfile {profile} is not one the chart ships")


def podman_flags(context: dict[str, Any]) -> list[str]:
    known = {"runAsUser", "runAsGroup", "runAsNonRoot", "capabilities", "allowPrivilegeEscalation",
             "readOnlyRootFilesystem", "seccompProfile", "procMount", "privileged"}
    if unknown := set(context) - known:
        raise UnsupportedContext(f"securityContext fields not translated: {sorted(unknown)}")
    if context.get("privileged") or context.get("procMount", "Default") != "Default":
        raise UnsupportedContext("a privileged container or an unmasked /proc is not Pod Security restricted")
    flags = ["--user", f"{context['runAsUser']}:{context.get('runAsGroup', context['runAsUser'])}"]
    capabilities = context.get("capabilities", {})
    flags += [f"--cap-drop={cap}" for cap in capabilities.get("drop", [])]
    flags += [f"--cap-add={cap}" for cap in capabilities.get("add", [])]
    if context.get("allowPrivilegeEscalation") is False:
        flags += ["--security-opt", "no-new-privileges"]
    if context.get("readOnlyRootFilesystem"):
        flags += ["--read-only", "--read-only-tmpfs=false"]
    flags += ["--security-opt", "mask=" + ":".join(CONTAINERD_EXTRA_MASKED)]
    flags += ["--security-opt", f"seccomp={seccomp_file(context.get('seccompProfile', {}))}"]
    return flags


def literal_env(container: dict[str, Any], prefix: str) -> dict[str, str]:
    """The container's environment entries with a literal value whose name starts with ``prefix``."""
    return {e["name"]: str(e["value"]) for e in container.get("env", [])
            if e["name"].startswith(prefix) and "value" in e}
