"""Which failed calls keep their invocation id's record (a retry must not run the tool again)."""

from __future__ import annotations

import pytest

from bkn_common.errors import ApiError, ErrorCode
from gateway.service_layer.catalogue import build_registry
from gateway.service_layer.pipeline import _may_have_acted
from gateway.settings import GatewaySettings

REGISTRY = build_registry(GatewaySettings())


def unavailable(dependency: str, reached: bool) -> ApiError:
    return ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503,
                    details={"dependency": dependency, "error": "X", "reached": reached})


@pytest.mark.parametrize(
    ("tool", "error", "acted"),
    [
        ("execute_tool", unavailable("tool-executor", reached=True), True),  # crashed mid-call
        ("execute_tool", unavailable("tool-executor", reached=False), False),  # refused connect
        ("execute_tool", unavailable("trace-recorder", reached=True), False),  # before dispatch
        ("search_capabilities", unavailable("tool-executor", reached=True), False),
        ("execute_tool", ApiError("upstream_timeout", 504), True),
    ],
)
def test_may_have_acted(tool: str, error: ApiError, acted: bool) -> None:
    definition = REGISTRY.get(tool)
    assert definition is not None
    assert _may_have_acted(definition, error) is acted
