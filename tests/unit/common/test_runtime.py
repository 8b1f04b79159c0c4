"""What ``serve`` hands uvicorn."""

from __future__ import annotations

from typing import Any

import pytest

from bkn_common import runtime
from bkn_common.settings import ServiceSettings


def test_the_server_keeps_idle_connections_for_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(runtime.uvicorn, "run", lambda app, **kwargs: seen.update(kwargs))
    monkeypatch.setenv("HTTP_KEEPALIVE_SECONDS", "90")
    runtime.serve(object(), ServiceSettings())  # type: ignore[arg-type]
    assert seen["timeout_keep_alive"] == 90
    runtime.serve(object(), ServiceSettings(http_keepalive_seconds=75))  # type: ignore[arg-type]
    assert seen["timeout_keep_alive"] == 75
