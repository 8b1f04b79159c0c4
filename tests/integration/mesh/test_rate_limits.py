"""Rate limits on the real Redis: the port's contract on the Redis adapter (memory: the unit run),
then REST and MCP refusals through the gateway of a running mesh."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from gateway.adapters.rate_limit import RedisRateLimiter
from tests.contracts import scratch_redis
from tests.contracts.rate_limiter import SLOW, Opener, RateLimiterContract
from tests.integration.mcp.support import connect, ok, refused, start
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

LIMITS = {"GATEWAY_RATE_LIMIT_ENABLED": "true",
          "GATEWAY_RATE_LIMIT_ACCOUNT_PER_SECOND": str(SLOW), "GATEWAY_RATE_LIMIT_ACCOUNT_BURST": "5",
          "GATEWAY_RATE_LIMIT_TOOL_PER_SECOND": str(SLOW), "GATEWAY_RATE_LIMIT_TOOL_BURST": "3"}


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    """The demo mesh, then its gateway restarted with tight limits (the start-up checks search
    as ``dev`` until the demo is visible, which tight limits would refuse)."""
    with running_mesh(infra, tmp_path_factory.mktemp("mesh-limits")) as running:
        running.layout.extra_env.update(LIMITS)
        running.restart("gateway")
        yield running


# -- the port's contract (tests/contracts/rate_limiter.py) on the Redis adapter ---------------


class TestRedisRateLimiter(RateLimiterContract):
    @pytest.fixture
    async def opener(self, infra: Infra) -> AsyncIterator[Opener]:
        async with scratch_redis(infra.redis) as (redis, prefix):
            yield lambda account, tool: RedisRateLimiter(redis, prefix, account, tool)


# -- through the gateway ----------------------------------------------------------------------


def test_rest_refuses_past_the_tool_burst_with_429_and_retry_after(mesh: RunningMesh) -> None:
    search = {"kn_id": "supply_chain", "query": "汇率"}
    answered = [mesh.call("search_capabilities", search, account="viewer").status_code for _ in range(3)]
    assert answered == [200, 200, 200]
    limited = mesh.call("search_capabilities", search, account="viewer", **{"Accept-Language": "zh-CN"})
    assert limited.status_code == 429, limited.text
    body = limited.json()
    assert body["code"] == "rate_limited" and "请求过于频繁" in body["message"]
    assert body["details"]["scope"] == "tool" and body["details"]["tool"] == "search_capabilities"
    assert 0 < body["details"]["retry_after_seconds"] <= 1 / SLOW
    assert int(limited.headers["Retry-After"]) >= 1
    assert body["request_id"] == limited.headers["bkn-request-id"]
    # the account's bucket: 3 taken, the refusal took none, two more tools fit, then none
    assert mesh.call("list_knowledge_networks", {}, account="viewer").status_code == 200
    assert mesh.call("get_kn_detail", {"kn_id": "supply_chain"}, account="viewer").status_code == 200
    over = mesh.call("get_object_types", {"kn_id": "supply_chain"}, account="viewer")
    assert over.status_code == 429 and over.json()["details"]["scope"] == "account"
    assert mesh.call("search_capabilities", search, account="dev").status_code == 200


async def test_mcp_refuses_past_the_burst_with_an_error_result(mesh: RunningMesh) -> None:
    async with connect(mesh.gateway, mesh.keys["analyst"]) as client:
        context = await start(client, "限流")  # one token of the account's five
        search = {"kn_id": "supply_chain", "query": "汇率", "bkn_context": context}
        for _ in range(3):
            ok(await client.call_tool("search_capabilities", search))
        envelope = refused(await client.call_tool("search_capabilities", search), "rate_limited")
        assert envelope["details"]["scope"] == "tool"
        assert 0 < envelope["details"]["retry_after_seconds"] <= 1 / SLOW
        assert (await client.list_tools()).tools  # listing is not a tool call
