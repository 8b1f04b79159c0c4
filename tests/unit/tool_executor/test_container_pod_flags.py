"""tests/container/pod.py: a securityContext becomes the flags a node would apply, and what it
cannot translate is refused rather than dropped."""

from __future__ import annotations

import pytest

from tests.container.pod import (
    CHART_PROFILE,
    RUNTIME_DEFAULT,
    UnsupportedContext,
    effective_context,
    podman_flags,
)

RESTRICTED = {"runAsUser": 10001, "runAsGroup": 10001, "runAsNonRoot": True,
              "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
              "capabilities": {"drop": ["ALL"]}, "seccompProfile": {"type": "RuntimeDefault"}}


def test_a_restricted_context_becomes_the_runtime_flags() -> None:
    flags = podman_flags(RESTRICTED)
    assert flags[:3] == ["--user", "10001:10001", "--cap-drop=ALL"]
    assert "no-new-privileges" in flags and "--read-only" in flags and "--read-only-tmpfs=false" in flags
    assert f"seccomp={RUNTIME_DEFAULT}" in flags
    assert any(flag.startswith("mask=/proc/asound") for flag in flags)


def test_the_containers_context_wins_over_the_pods() -> None:
    pod = {"securityContext": {"runAsUser": 1, "fsGroup": 10001, "seccompProfile": {"type": "RuntimeDefault"}}}
    container = {"securityContext": {"runAsUser": 10001, "seccompProfile": {
        "type": "Localhost", "localhostProfile": "context-loader/tool-executor-seccomp.json"}}}
    context = effective_context(pod, container)
    assert context["runAsUser"] == 10001 and "fsGroup" not in context
    assert f"seccomp={CHART_PROFILE}" in podman_flags(context)


@pytest.mark.parametrize("change", [
    {"procMount": "Unmasked"}, {"privileged": True}, {"seLinuxOptions": {"type": "x"}},
    {"seccompProfile": {"type": "Localhost", "localhostProfile": "someone-elses.json"}},
])
def test_what_it_cannot_translate_faithfully_is_refused(change: dict[str, object]) -> None:
    with pytest.raises(UnsupportedContext):
        podman_flags({**RESTRICTED, **change})
