"""Suite-wide hooks."""

from __future__ import annotations

import signal
from types import FrameType

import pytest


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def pytest_configure(config: pytest.Config) -> None:
    """A run stopped with SIGTERM (kill, a CI timeout, `make` interrupted) ends like Ctrl-C: the
    fixtures' teardown runs, so the meshes, brokers and servers they started are stopped instead
    of being left running (and polling the broker) after the run."""
    signal.signal(signal.SIGTERM, _interrupt)
