"""What ``serve`` hands uvicorn."""

from __future__ import annotations

import pytest

from bkn_common.framework import runtime
from bkn_common.infra.settings import ServiceSettings


def test_the_server_keeps_idle_connections_for_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_KEEPALIVE_SECONDS", "90")
    assert runtime.server_config(object(), ServiceSettings()).timeout_keep_alive == 90  # type: ignore[arg-type]
    config = runtime.server_config(object(), ServiceSettings(http_keepalive_seconds=75))  # type: ignore[arg-type]
    assert config.timeout_keep_alive == 75


def test_open_connections_get_half_the_stop_deadline() -> None:
    config = runtime.server_config(object(), ServiceSettings(stop_seconds=4))  # type: ignore[arg-type]
    assert config.timeout_graceful_shutdown == 2
