"""The kernel-enforced sandbox (TOOL_EXECUTOR_SANDBOX=bwrap) over the real mesh: hostile
function tools are contained, come back as the tool's error with a code and a message in the
caller's language, and the executor answers the next call normally.

tool-executor runs with a marker secret in its environment; no function may see it.
"""

from __future__ import annotations

import json
import platform
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bkn_common.contracts import events as ev
from tests.integration.capabilities.helpers import (
    execute,
    function_tool,
    network,
    ok,
    publish,
    published,
    refused,
    search_refs,
    start_interaction,
    tool_ref,
    wait_receipt,
    wait_until,
)
from tests.support.hostile_functions import (
    ALLOCATE_10_GB,
    CONNECT,
    ENVIRON,
    FORK_BOMB,
    INFINITE_LOOP,
    NORMAL,
    PRINT_60_MB,
    RETURN_60_MB,
    STUBBORN_FORK_BOMB,
    WRITE,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

MARKER = f"marker-secret-{uuid.uuid4().hex}"

KERNEL_SURFACE = """import ctypes, os, subprocess, threading
NUMBERS = {'unshare': 272, 'clone': 56, 'io_uring_setup': 425, 'bpf': 321, 'keyctl': 250,
           'clone3': 435}
def handler(a):
    libc = ctypes.CDLL(None, use_errno=True)
    def call(name, *args):
        ctypes.set_errno(0)
        result = libc.syscall(NUMBERS[name], *args)
        return os.strerror(ctypes.get_errno()) if result == -1 else 'succeeded'
    answers = {
        'unshare(CLONE_NEWUSER)': call('unshare', 0x10000000),
        'clone(CLONE_NEWUSER)': call('clone', 0x10000000 | 17, 0, 0, 0, 0),
        'io_uring_setup': call('io_uring_setup', 1, 0),
        'bpf': call('bpf', 0, 0, 0),
        'keyctl': call('keyctl', 0, 0),
        'clone3': call('clone3', 0, 0),
    }
    thread = threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    answers['child process'] = subprocess.run(['/bin/echo', 'ok'], capture_output=True).stdout.decode()
    return answers
"""
SCRATCH_NOTE = "def handler(a):\n    open('/scratch/earlier.txt', 'w').write('x')\n    return 'noted'\n"

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "s_connect": (CONNECT, {}),
    "s_environ": (ENVIRON, {}),
    "s_write": (WRITE, {}),
    "s_note": (SCRATCH_NOTE, {}),
    "s_fork_bomb": (FORK_BOMB, {"wall_seconds": 30.0}),
    "s_stubborn_fork_bomb": (STUBBORN_FORK_BOMB, {"wall_seconds": 3.0, "cpu_seconds": 60}),
    "s_allocate": (ALLOCATE_10_GB, {"wall_seconds": 30.0}),
    "s_loop": (INFINITE_LOOP, {"cpu_seconds": 1, "wall_seconds": 60.0}),
    "s_return_60mb": (RETURN_60_MB, {"memory_mb": 512, "wall_seconds": 30.0}),
    "s_print_60mb": (PRINT_60_MB, {"wall_seconds": 30.0}),
    "s_kernel_surface": (KERNEL_SURFACE, {}),
    "s_normal": (NORMAL, {}),
}


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(
        infra,
        tmp_path_factory.mktemp("cap_sandbox"),
        extra_env={"TOOL_EXECUTOR_MARKER_SECRET": MARKER},
    ) as running:
        tools = [function_tool(t, source, **limits) for t, (source, limits) in TOOLS.items()]
        publish(
            running,
            ev.ToolboxUpserted(id="box_hostile", name="hostile", kind="function", tools=tuple(tools)),
            *published("box_hostile", TOOLS),
            *network("hostile_kn", refs=[tool_ref("box_hostile", t) for t in TOOLS]),
        )
        wait_until(lambda: len(search_refs(running, "hostile_kn")) == len(TOOLS))
        yield running


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


def run(
    mesh: RunningMesh,
    context: dict[str, str],
    tool: str,
    arguments: dict[str, Any] | None = None,
    **headers: str,
) -> httpx.Response:
    return execute(mesh, context, "box_hostile", tool, arguments or {}, kn_id="hostile_kn", **headers)


def still_serving(mesh: RunningMesh, context: dict[str, str]) -> None:
    assert ok(run(mesh, context, "s_normal", {"x": 2, "y": 3})) == {"sum": 5}


def test_native_connect_to_loopback_fails_and_the_listener_sees_nothing(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        body = ok(run(mesh, context, "s_connect", {"port": listener.getsockname()[1]}))
        assert body["code"] == "function_failed" and body["error"] == "function failed"
        assert "libc connect: Connection refused" in body["stderr"]  # its own empty loopback
        with pytest.raises(BlockingIOError):  # nothing ever reached the host's loopback
            listener.accept()
    still_serving(mesh, context)


def test_no_service_secret_in_any_environment_the_function_can_read(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    body = ok(run(mesh, context, "s_environ"))
    assert MARKER not in json.dumps(body)
    assert set(body["env"]) <= {"PATH", "LANG", "PYTHONIOENCODING", "HOME", "TMPDIR", "PWD"}
    assert body["proc_mounted"] is False  # no process table at all (its own pid namespace too)
    assert set(body["proc"].values()) == {"refused: FileNotFoundError"}


def test_writes_outside_the_scratch_directory_do_not_reach_the_host(
    mesh: RunningMesh, context: dict[str, str], tmp_path: Path
) -> None:
    name = f"escape-{uuid.uuid4().hex}"
    host_tmp = Path("/tmp") / name
    targets = [str(tmp_path / name), str(host_tmp), f"/usr/{name}", f"/{name}", f"/etc/{name}"]
    assert ok(run(mesh, context, "s_note")) == "noted"
    body = ok(run(mesh, context, "s_write", {"paths": targets}))
    assert body["note"] == "scratch works" and body["cwd"] == "/scratch"
    assert body["earlier_note_seen"] is False  # every call gets a fresh scratch
    assert set(body["written"]) <= {str(host_tmp)}  # /tmp inside is the sandbox's scratch
    for target in targets:
        assert not Path(target).exists(), target


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the payload names x86_64 syscall numbers")
def test_the_seccomp_filter_refuses_namespaces_and_kernel_interfaces_but_not_threads_or_children(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    refused_with = "Operation not permitted"
    assert ok(run(mesh, context, "s_kernel_surface")) == {
        "unshare(CLONE_NEWUSER)": refused_with,  # without the filter: succeeded
        "clone(CLONE_NEWUSER)": refused_with,
        "io_uring_setup": refused_with,
        "bpf": refused_with,
        "keyctl": refused_with,
        "clone3": "Function not implemented",  # so libc falls back to clone
        "child process": "ok\n",
    }
    still_serving(mesh, context)


@pytest.mark.parametrize(
    ("tool", "code", "details"),
    [
        ("s_fork_bomb", "sandbox_process_limit", {"max_processes": 32}),
        ("s_allocate", "sandbox_memory_limit", {"memory_mb": 256}),
        ("s_loop", "sandbox_cpu_limit", {"cpu_seconds": 1}),
        ("s_return_60mb", "sandbox_output_limit", {"limit_bytes": 1024 * 1024}),
        ("s_print_60mb", "sandbox_output_limit", {"limit_bytes": 1024 * 1024}),
    ],
)
def test_a_limit_ends_the_run_as_the_tools_error_with_its_reason(
    mesh: RunningMesh, context: dict[str, str], tool: str, code: str, details: dict[str, int]
) -> None:
    response = run(mesh, context, tool, **{"Accept-Language": "zh-CN"})
    body = ok(response)
    assert body["code"] == code and body["details"].items() >= details.items()
    assert any("\u4e00" <= ch <= "\u9fff" for ch in body["message"])  # rendered in zh-CN
    assert len(response.content) < 64 * 1024  # bounded, whatever the function produced
    receipt_id = response.headers["bkn-receipt-id"]
    assert wait_receipt(mesh, lambda r: r.receipt_id == receipt_id).outcome == "sandbox_error"
    english = ok(run(mesh, context, tool, **{"Accept-Language": "en-US"}))
    assert english["code"] == code and "limit" in english["message"]
    still_serving(mesh, context)


def test_a_fork_bomb_that_ignores_refusals_is_killed_as_a_whole_at_the_wall_clock(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    body = refused(run(mesh, context, "s_stubborn_fork_bomb"), 504, "upstream_timeout")
    assert "3" in body["message"]
    still_serving(mesh, context)
