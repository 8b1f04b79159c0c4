"""The loopback control plane for ``make k8s-test`` (not part of ``make test``: pyproject's
pytest options ignore this folder unless it is named on the command line)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLUSTER = ROOT / "scripts" / "k8s-cluster.sh"
TOOLS = ROOT / "scripts" / "k8s-tools.sh"


def _environment(*scripts: Path) -> dict[str, str]:
    exports = " && ".join(f'eval "$({script} env)"' for script in scripts)
    dump = subprocess.run(
        ["bash", "-c", f"{exports} && env -0"], check=True, capture_output=True, cwd=ROOT
    ).stdout.decode()
    return dict(item.split("=", 1) for item in dump.split("\0") if "=" in item)


@dataclass
class Cluster:
    env: dict[str, str]
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, *args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            list(args), env=self.env, capture_output=True, text=True, cwd=ROOT, timeout=timeout
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"{' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
            )
        return result

    def timed(self, name: str, *args: str) -> subprocess.CompletedProcess[str]:
        started = time.monotonic()
        try:
            return self.run(*args)
        finally:
            self.timings[name] = time.monotonic() - started


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    subprocess.run([str(TOOLS)], check=True, cwd=ROOT)
    started = time.monotonic()
    subprocess.run([str(CLUSTER), "start"], check=True, cwd=ROOT)
    running = Cluster(_environment(TOOLS, CLUSTER))
    running.timings["control plane start"] = time.monotonic() - started
    try:
        yield running
    finally:
        subprocess.run([str(CLUSTER), "stop"], check=False, cwd=ROOT)
        print("\nk8s-test timings (s): " + ", ".join(f"{k} {v:.1f}" for k, v in running.timings.items()))
