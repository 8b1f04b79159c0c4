"""The OpenAPI upstream request as sent: query values and the JSON body encoded as httpx
encoded them before the client moved to aiohttp, so an upstream sees the same request."""

from __future__ import annotations

import httpx

from tool_executor.adapters.openapi_client import json_body, query_pairs, request_url

PARAMS = {"q": "a b/ü&x", "flag": True, "off": False, "none": None, "ids": [1, "two"], "n": 1.5}


def test_query_values_are_encoded_as_httpx_encoded_them() -> None:
    ours = request_url("http://up.example/fx/convert", PARAMS)
    theirs = httpx.Request("GET", "http://up.example/fx/convert", params=PARAMS).url
    assert str(ours) == str(theirs)
    assert ours.raw_query_string == theirs.query.decode()


def test_a_url_that_has_a_query_keeps_it_and_gains_the_parameters() -> None:
    assert str(request_url("http://up.example/x?v=1", {"flag": False})) == "http://up.example/x?v=1&flag=false"


def test_without_parameters_the_url_is_unchanged() -> None:
    assert str(request_url("http://up.example/items/a%2Fb", {})) == "http://up.example/items/a%2Fb"


def test_list_items_are_one_pair_each() -> None:
    assert query_pairs({"ids": (1, 2), "x": None}) == [("ids", "1"), ("ids", "2"), ("x", "")]


def test_the_json_body_is_compact_utf8_as_httpx_sent_it() -> None:
    body = {"amount": 1200, "note": "汇率", "nested": [1, {"a": None}]}
    assert json_body(body) == httpx.Request("POST", "http://up.example/", json=body).content


def test_the_execute_answer_keeps_every_digit_of_a_long_integer() -> None:
    from bkn_common.contracts import json_codec
    from bkn_common.framework.http import json_response
    from tool_executor.service_layer.execution import ExecutionOutcome

    outcome = ExecutionOutcome("rcpt_1", "succeeded", 200, {"id": 12345678901234567890123, "x": "汇率"}, 1.0, [])
    answer = json_response(outcome.as_dict())  # what /internal/v1/execute sends
    assert json_codec.loads(bytes(answer.body))["body"]["id"] == 12345678901234567890123


async def _two_calls_apart(keepalive_seconds: float) -> tuple[list[int], int]:
    """Two POSTs 0.3 s apart to a server that drops a reused connection: the statuses (a
    transport failure is -1) and how many connections the server saw."""
    from tests.support.closing_server import closing_server, twice
    from tool_executor.adapters.openapi_client import OpenApiClient
    from tool_executor.domain.openapi import HttpRequestPlan
    from tool_executor.service_layer.ports import UpstreamUnreachable

    async with closing_server() as (url, server):
        client = OpenApiClient(1024, keepalive_seconds)
        plan = HttpRequestPlan("POST", f"{url}/fx/convert", {}, {}, {"amount": 1})

        async def call() -> int:
            try:
                return (await client.call(plan, 5, "proxy")).status_code
            except UpstreamUnreachable:
                return -1

        try:
            return await twice(call), server.connections
        finally:
            await client.aclose()


async def test_a_connection_idle_past_the_keepalive_is_not_reused_for_the_next_call() -> None:
    assert await _two_calls_apart(0.2) == ([200, 200], 2)


async def test_a_pool_that_keeps_idle_connections_longer_sends_on_one_the_server_closed() -> None:
    """Why the keep-alive is shorter than the upstream's: the POST fails and is not resent."""
    assert await _two_calls_apart(30) == ([200, -1], 1)


def test_the_upstream_keepalive_is_shorter_than_common_servers_keep_a_connection() -> None:
    from tool_executor.settings import ToolExecutorSettings

    assert ToolExecutorSettings().upstream_keepalive_seconds < 5  # uvicorn, Node.js, Apache
