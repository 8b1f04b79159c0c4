"""Which session-flow requests are served as single exchanges, and which are left to the SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.requests import Request

from gateway.entrypoints.mcp_exchange import single_exchange

CALL = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "x", "arguments": {}}}
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
}


def _request(method: str = "POST", **overrides: str | None) -> Request:
    headers = {**HEADERS, **overrides}
    raw = [(k.encode(), v.encode()) for k, v in headers.items() if v is not None]
    return Request({"type": "http", "method": method, "path": "/mcp", "headers": raw})


def _body(message: Any) -> bytes:
    return json.dumps(message).encode()


def test_a_session_tools_call_is_one_exchange() -> None:
    assert single_exchange(_request(), _body(CALL)) == CALL
    listing = {"jsonrpc": "2.0", "id": "a", "method": "tools/list"}
    assert single_exchange(_request(), _body(listing)) == listing


@pytest.mark.parametrize(
    "message",
    [
        {**CALL, "method": "initialize"},
        {**CALL, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},  # a notification: 202 by the SDK
        {**CALL, "id": True},
        {**CALL, "id": None},
        {**CALL, "jsonrpc": "1.0"},
        {**CALL, "params": ["not", "an", "object"]},
        [CALL],  # a batch
    ],
)
def test_other_messages_are_left_to_the_sdk(message: Any) -> None:
    assert single_exchange(_request(), _body(message)) is None


@pytest.mark.parametrize(
    ("method", "overrides"),
    [
        ("GET", {}),
        ("POST", {"mcp-protocol-version": None}),  # sessionless legacy or unknown: the SDK decides
        ("POST", {"mcp-protocol-version": "2026-07-28"}),
        ("POST", {"mcp-protocol-version": "1999-01-01"}),
        ("POST", {"content-type": "text/plain"}),
        ("POST", {"accept": "text/event-stream"}),  # the SDK answers 406
    ],
)
def test_other_requests_are_left_to_the_sdk(method: str, overrides: dict[str, str | None]) -> None:
    assert single_exchange(_request(method, **overrides), _body(CALL)) is None


def test_unparseable_or_oversized_bodies_are_left_to_the_sdk() -> None:
    assert single_exchange(_request(), b"{not json") is None
    huge = {**CALL, "params": {"name": "x", "arguments": {"blob": "a" * (5 * 1024 * 1024)}}}
    assert single_exchange(_request(), _body(huge)) is None
