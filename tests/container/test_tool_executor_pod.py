"""tool-executor's sandbox in the image, in a container started with exactly the securityContext
the chart renders (tests/container/pod.py turns it into podman's flags), while other containers
run as the same uid: the operators' preflight passes and every hostile function is contained
with its reason. Under plain RuntimeDefault the preflight fails and says why."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.container.conftest import ROOT, podman
from tests.container.pod import RUNTIME_DEFAULT, effective_context, literal_env, podman_flags
from tests.helm.chart import REQUIRED, documents, render
from tests.support import hostile_functions as hostile

MARKER = f"marker-secret-{uuid.uuid4().hex}"
RUNNER = Path(__file__).with_name("hostile_runner.py")


def tool_executor_pod() -> tuple[dict[str, Any], dict[str, Any]]:
    """(pod spec, container) of the tool-executor Deployment `helm template` renders by default."""
    for doc in documents(render(REQUIRED)):
        component = doc["metadata"]["labels"].get("app.kubernetes.io/component")
        if doc["kind"] == "Deployment" and component == "tool-executor":
            spec = doc["spec"]["template"]["spec"]
            return spec, spec["containers"][0]
    raise AssertionError("no tool-executor Deployment rendered")


@pytest.fixture(scope="module")
def run_args(image: str, same_uid_neighbours: int) -> list[str]:
    spec, container = tool_executor_pod()
    env = literal_env(container, "TOOL_EXECUTOR_")
    args = ["run", "--rm", "-i", "--network", "none", "--tmpfs", "/tmp:rw,size=256m",
            *podman_flags(effective_context(spec, container))]
    for name, value in {**env, "TOOL_EXECUTOR_MARKER_SECRET": MARKER}.items():
        args += ["-e", f"{name}={value}"]
    return args


def test_the_chart_runs_tool_executor_under_its_own_localhost_profile() -> None:
    spec, container = tool_executor_pod()
    context = effective_context(spec, container)
    assert context["seccompProfile"] == {"type": "Localhost",
                                         "localhostProfile": "context-loader/tool-executor-seccomp.json"}
    assert context["capabilities"] == {"drop": ["ALL"]} and context["readOnlyRootFilesystem"] is True
    assert context["allowPrivilegeEscalation"] is False and context["runAsNonRoot"] is True


def test_the_preflight_passes_in_the_charts_container(run_args: list[str], image: str) -> None:
    done = podman(*run_args, image, "python", "-m", "tool_executor", "check-sandbox")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verdict: the sandbox works in this container" in done.stdout
    assert "ok    process limit  RLIMIT_NPROC 32" in done.stdout


def test_under_plain_runtime_default_the_preflight_says_why_it_fails(run_args: list[str], image: str) -> None:
    args = [a if not a.startswith("seccomp=") else f"seccomp={RUNTIME_DEFAULT}" for a in run_args]
    done = podman(*args, image, "python", "-m", "tool_executor", "check-sandbox")
    assert done.returncode == 1
    assert "FAIL  start-up" in done.stdout and "hint: " in done.stdout
    assert "tool-executor-seccomp.json" in done.stdout


RUNS: list[dict[str, Any]] = [
    {"name": "connect", "source": hostile.CONNECT, "arguments": {"port": "LISTENER"}},
    {"name": "environ", "source": hostile.ENVIRON},
    {"name": "write", "source": hostile.WRITE,
     "arguments": {"paths": ["/app/escape", "/tmp/escape", "/usr/escape", "/escape", "/etc/escape",
                             "/var/lib/context-loader/escape"]}},
    {"name": "fork_bomb", "source": hostile.FORK_BOMB, "limits": {"wall_seconds": 30.0}},
    {"name": "stubborn_fork_bomb", "source": hostile.STUBBORN_FORK_BOMB,
     "limits": {"wall_seconds": 3.0, "cpu_seconds": 60}},
    {"name": "allocate", "source": hostile.ALLOCATE_10_GB, "limits": {"wall_seconds": 30.0}},
    {"name": "loop", "source": hostile.INFINITE_LOOP, "limits": {"cpu_seconds": 1, "wall_seconds": 60.0}},
    {"name": "return_60mb", "source": hostile.RETURN_60_MB, "limits": {"memory_mb": 512, "wall_seconds": 30.0}},
    {"name": "print_60mb", "source": hostile.PRINT_60_MB, "limits": {"wall_seconds": 30.0}},
    {"name": "normal", "source": hostile.NORMAL, "arguments": {"x": 2, "y": 3}},
]


@pytest.fixture(scope="module")
def contained(run_args: list[str], image: str) -> dict[str, dict[str, Any]]:
    runner = ["-v", f"{RUNNER}:/opt/bkn-tests/hostile_runner.py:ro"]
    done = podman(*run_args, *runner, image, "python", "/opt/bkn-tests/hostile_runner.py",
                  stdin=json.dumps({"runs": RUNS}))
    assert done.returncode == 0, done.stdout + done.stderr
    results = {line["name"]: line for line in map(json.loads, done.stdout.splitlines())}
    assert set(results) == {run["name"] for run in RUNS}
    return results


def test_no_network_reaches_even_the_containers_own_loopback(contained: dict[str, dict[str, Any]]) -> None:
    connect = contained["connect"]
    assert connect["reason"] == "function_failed" and "libc connect: Connection refused" in connect["stderr"]
    assert connect["accepted"] is False


def test_no_service_secret_and_no_process_table(contained: dict[str, dict[str, Any]]) -> None:
    environ = contained["environ"]
    assert environ["reason"] is None and MARKER not in environ["stdout"]
    body = json.loads(environ["stdout"])["result"]
    assert set(body["env"]) <= {"PATH", "LANG", "PYTHONIOENCODING", "HOME", "TMPDIR", "PWD"}
    assert body["proc_mounted"] is False


def test_nothing_is_written_outside_scratch(contained: dict[str, dict[str, Any]]) -> None:
    body = json.loads(contained["write"]["stdout"])["result"]
    assert body["note"] == "scratch works" and body["cwd"] == "/scratch"
    assert set(body["written"]) <= {"/tmp/escape"}  # /tmp inside is the sandbox's own scratch


@pytest.mark.parametrize(
    ("name", "reason"),
    [("fork_bomb", "sandbox_process_limit"), ("allocate", "sandbox_memory_limit"),
     ("loop", "sandbox_cpu_limit"), ("return_60mb", "sandbox_output_limit"),
     ("print_60mb", "sandbox_output_limit")],
)
def test_each_limit_ends_its_run_with_the_reason(contained: dict[str, dict[str, Any]], name: str, reason: str) -> None:
    assert contained[name]["reason"] == reason, contained[name]


def test_a_stubborn_fork_bomb_is_killed_at_the_wall_clock_and_the_next_run_works(
    contained: dict[str, dict[str, Any]],
) -> None:
    assert contained["stubborn_fork_bomb"]["timed_out"] is True
    assert json.loads(contained["normal"]["stdout"]) == {"result": {"sum": 5}}


def test_the_write_targets_outside_scratch_do_not_exist_in_the_image(run_args: list[str], image: str) -> None:
    paths = [p for p in RUNS[2]["arguments"]["paths"] if not p.startswith("/tmp/")]
    done = podman(*run_args, image, "python", "-c",
                  "import os, sys; print([p for p in sys.argv[1:] if os.path.exists(p)])", *paths)
    assert done.stdout.strip() == "[]"
    assert ROOT.exists()
