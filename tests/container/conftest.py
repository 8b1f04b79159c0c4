"""The image `make image` built, run by podman with the project's own configuration (state
under the checkout's .cache/, as scripts/image.sh sets it). `make container-test` builds the
image first; run alone without it, these tests are skipped with the reason."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("CONTAINER_TEST_IMAGE", "localhost/context-loader-mesh:dev")


@cache
def podman_env() -> dict[str, str]:
    """os.environ plus what `scripts/image.sh env` exports (podman's config and storage)."""
    exported = subprocess.run([str(ROOT / "scripts" / "image.sh"), "env"], capture_output=True,
                              text=True, check=True).stdout
    env = dict(os.environ)
    for line in exported.splitlines():
        name, _, value = line.removeprefix("export ").partition("=")
        if name and value:
            env[name] = value.strip("'\"")
    return env


def podman(*args: str, timeout: float = 600, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["podman", *args], env=podman_env(), capture_output=True, text=True,
                          timeout=timeout, input=stdin, check=False)


def _missing(reason: str) -> None:
    """`make container-test` sets CONTAINER_TEST_REQUIRED: there a missing part is a failure."""
    if os.environ.get("CONTAINER_TEST_REQUIRED") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def image() -> str:
    if shutil.which("podman") is None:
        _missing("podman is not installed (make container-test installs it)")
    if podman("image", "exists", IMAGE).returncode != 0:
        _missing(f"{IMAGE} is not built (make container-test builds it with make image)")
    return IMAGE


@pytest.fixture(scope="session")
def same_uid_neighbours(image: str) -> Iterator[int]:
    """Two other containers of the image running as uid 10001 with 40 threads each: more
    processes of that uid on this host than the sandbox's process limit (32)."""
    names = [f"clm-neighbour-{uuid.uuid4().hex[:8]}" for _ in range(2)]
    hold = ("import threading, time\n"
            "for _ in range(40):\n    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n"
            "time.sleep(3600)")
    for name in names:
        started = podman("run", "-d", "--rm", "--name", name, "--user", "10001:10001", "--network", "none",
                         image, "python", "-c", hold)
        assert started.returncode == 0, started.stderr
    try:
        yield 10001
    finally:
        for name in names:
            podman("rm", "-f", "-t", "0", name)
