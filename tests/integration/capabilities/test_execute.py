"""execute_tool over the real mesh: checks before dispatch (the target is never called when one
fails, counted on the demo upstreams), OpenAPI / MCP / sandboxed function dispatch, transport
fields, bkn_context, receipts on Kafka, and the client invocation id.

Lifecycle changes to supply_chain itself live in test_lifecycle.py (their own mesh).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from bkn_common.contracts import events as ev
from tests.integration.capabilities.helpers import (
    FX,
    FX_ARGS,
    execute,
    finance_stats,
    function_tool,
    invocation_id,
    logistics_stats,
    network,
    ok,
    publish,
    published,
    receipts,
    refused,
    search_refs,
    start_interaction,
    tool_ref,
    upstream_totals,
    wait_receipt,
    wait_until,
)
from tests.support.infra import Infra
from tests.support.mesh import RunningMesh, running_mesh

INVOCATION = "X-OpenBKN-Client-Invocation-Id"


@pytest.fixture(scope="module")
def mesh(infra: Infra, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningMesh]:
    with running_mesh(infra, tmp_path_factory.mktemp("cap_execute")) as running:
        yield running


@pytest.fixture(scope="module")
def context(mesh: RunningMesh) -> dict[str, str]:
    return start_interaction(mesh)


def business_hash(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def receipt_for(mesh: RunningMesh, response: httpx.Response) -> ev.ExecutionReceiptRecorded:
    receipt_id = response.headers["bkn-receipt-id"]
    return wait_receipt(mesh, lambda r: r.receipt_id == receipt_id)


# -- dispatch -------------------------------------------------------------------------------


def test_openapi_tool_runs_and_publishes_a_complete_receipt(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    before = finance_stats(mesh)["fx_convert"]
    started = datetime.now(UTC)
    response = execute(mesh, context, *FX, FX_ARGS)
    assert ok(response) == {
        "amount": 100.0,
        "from": "USD",
        "to": "CNY",
        "rate": 7.2,
        "converted": 720.0,
        "date": "2025-01-02",
    }
    assert finance_stats(mesh)["fx_convert"] == before + 1
    receipt = receipt_for(mesh, response)
    assert receipt.receipt_id.startswith("rcpt_")
    assert receipt.operation_id == response.headers["bkn-operation-id"]
    assert (receipt.conversation_id, receipt.interaction_id) == (
        context["conversation_id"],
        context["interaction_id"],
    )
    assert (receipt.kn_id, receipt.owner_id, receipt.tool_id, receipt.capability_type) == (
        "supply_chain",
        "box_finance",
        "tool_fx_convert",
        "function",
    )
    assert receipt.caller == "dev"
    assert receipt.proxy_id == "proxy-supply-chain"
    assert receipt.arguments_hash == business_hash(FX_ARGS)
    assert receipt.ignored_transport_fields == ()
    assert (receipt.outcome, receipt.status_code) == ("succeeded", 200)
    assert 0 < receipt.latency_ms < 30_000
    assert (
        started - timedelta(seconds=5)
        <= receipt.executed_at
        <= datetime.now(UTC) + timedelta(seconds=5)
    )


def test_transport_fields_take_no_effect_and_are_recorded(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    """The caller can neither redirect the call nor choose the proxy identity."""
    before = finance_stats(mesh)["fx_convert"]
    smuggled = {
        "server_url": "http://127.0.0.1:9/evil",
        "url": "http://127.0.0.1:9",
        "proxy_id": "proxy-root",
        "Authorization": "Bearer stolen",
        "token": "t",
        "conversation_id": "conv_forged",
        "timeout": 0.001,
    }
    response = execute(mesh, context, *FX, {**FX_ARGS, **smuggled})
    assert ok(response)["converted"] == 720.0
    assert finance_stats(mesh)["fx_convert"] == before + 1  # the registered server was called
    receipt = receipt_for(mesh, response)
    assert receipt.ignored_transport_fields == tuple(sorted(smuggled))
    assert receipt.proxy_id == "proxy-supply-chain"
    assert receipt.caller == "dev"
    assert receipt.conversation_id == context["conversation_id"]
    assert receipt.arguments_hash == business_hash(FX_ARGS)


def test_openapi_path_query_header_and_body_come_from_the_registered_operation(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    arguments = {
        "order_id": "PO-2025 A",
        "currency": "usd",
        "X-Settlement-Channel": "swift",
        "amount": 10,
    }
    body = ok(execute(mesh, context, "box_finance", "tool_settle_order", arguments))
    assert (
        body["order_id"],
        body["currency"],
        body["channel"],
        body["amount"],
        body["amount_cny"],
    ) == ("PO-2025 A", "USD", "swift", 10.0, 72.0)
    rates = ok(execute(mesh, context, "box_finance", "tool_get_rates", {"base": "EUR"}))
    assert rates["base"] == "EUR" and rates["rates"]["EUR"] == 1.0
    assert ok(execute(mesh, context, "box_finance", "tool_get_rates", {}))["base"] == "CNY"


def test_missing_required_tool_parameters_are_refused_before_dispatch(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    before, receipts_before = finance_stats(mesh), len(receipts(mesh))
    body = refused(
        execute(
            mesh, context, "box_finance", "tool_settle_order", {"order_id": "PO-1", "amount": 1}
        ),
        400,
        "invalid_request",
    )
    assert body["details"]["missing"] == ["currency"]
    assert finance_stats(mesh) == before
    assert len(receipts(mesh)) == receipts_before  # nothing was dispatched


def test_the_tools_own_error_is_a_200_with_its_body(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    response = execute(mesh, context, *FX, {"amount": 1, "from": "XXX", "to": "CNY"})
    body = ok(response)
    assert body["error"] == "unsupported_currency" and body["currency"] == "XXX"
    receipt = receipt_for(mesh, response)
    assert (receipt.outcome, receipt.status_code) == ("tool_error", 422)


def test_mcp_tools_run_through_the_mcp_client(mesh: RunningMesh, context: dict[str, str]) -> None:
    before = logistics_stats(mesh)
    response = execute(
        mesh, context, "mcp_logistics", "track_shipment", {"shipment_id": "SF1234567890"}
    )
    body = ok(response)
    assert body["is_error"] is False
    assert body["structured_content"]["carrier"] == "顺丰速运"
    receipt = receipt_for(mesh, response)
    assert (receipt.capability_type, receipt.owner_id, receipt.outcome) == (
        "mcp_tool",
        "mcp_logistics",
        "succeeded",
    )
    estimate = ok(
        execute(
            mesh,
            context,
            "mcp_logistics",
            "estimate_delivery",
            {"origin": "上海", "destination": "成都", "weight_kg": 2},
        )
    )
    assert estimate["is_error"] is False and estimate["structured_content"]
    failed = execute(mesh, context, "mcp_logistics", "track_shipment", {"shipment_id": "XX1"})
    assert ok(failed)["is_error"] is True
    assert json.loads(ok(failed)["content"][0]["text"])["error"] == "unknown_shipment_prefix"
    assert receipt_for(mesh, failed).outcome == "tool_error"
    after = logistics_stats(mesh)
    assert (
        after["track_shipment"] - before["track_shipment"],
        after["estimate_delivery"] - before["estimate_delivery"],
    ) == (2, 1)


def test_function_tools_run_in_the_sandbox(mesh: RunningMesh, context: dict[str, str]) -> None:
    body = ok(
        execute(
            mesh,
            context,
            "box_analytics",
            "tool_supplier_score",
            {"on_time_rate": 0.9, "defect_rate": 0.01},
        )
    )
    assert body["grade"] == "B" and body["score"] == 78.0
    turnover = ok(
        execute(
            mesh,
            context,
            "box_analytics",
            "tool_inventory_turnover",
            {"cost_of_goods_sold": 1200, "opening_inventory": 100, "closing_inventory": 300},
        )
    )
    assert turnover


# -- sandbox limits -------------------------------------------------------------------------

SANDBOX_TOOLS = {
    "t_net": (
        lambda port: (
            "import socket\ndef handler(a):\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).close()\n"
            "    return {'connected': True}\n"
        ),
        {},
    ),
    "t_net_declared": (
        lambda port: (
            "import urllib.request, json\ndef handler(a):\n"
            f"    with urllib.request.urlopen('http://127.0.0.1:{port}/healthz', timeout=5) as r:\n"
            "        return json.loads(r.read())\n"
        ),
        {"allow_network": True},
    ),
    "t_wall": (
        lambda port: "import time\ndef handler(a):\n    time.sleep(10)\n",
        {"wall_seconds": 1.0},
    ),
    "t_cpu": (
        lambda port: "def handler(a):\n    while True:\n        pass\n",
        {"cpu_seconds": 1, "wall_seconds": 20.0},
    ),
    "t_memory": (
        lambda port: "def handler(a):\n    return len(bytearray(512 * 1024 * 1024))\n",
        {"memory_mb": 128},
    ),
    "t_output": (lambda port: "def handler(a):\n    return 'z' * 50000\n", {}),
    "t_prints": (
        lambda port: "def handler(a):\n    print('progress: 50%')\n    return {'n': a['n'] * 2}\n",
        {},
    ),
    "t_raises": (
        lambda port: "def handler(a):\n    raise ValueError('bad input: ' + repr(a))\n",
        {},
    ),
}


@pytest.fixture(scope="module")
def sandbox_kn(mesh: RunningMesh) -> str:
    port = int(mesh.url("finance_api").rsplit(":", 1)[1])
    tools = [
        function_tool(t, source(port), **limits) for t, (source, limits) in SANDBOX_TOOLS.items()
    ]
    publish(
        mesh,
        ev.ToolboxUpserted(id="box_sandbox", name="sandbox", kind="function", tools=tuple(tools)),
        *published("box_sandbox", SANDBOX_TOOLS),
        *network("sandbox_kn", refs=[tool_ref("box_sandbox", t) for t in SANDBOX_TOOLS]),
    )
    wait_until(lambda: len(search_refs(mesh, "sandbox_kn")) == len(SANDBOX_TOOLS))
    return "sandbox_kn"


def run_sandboxed(
    mesh: RunningMesh, context: dict[str, str], tool: str, arguments: dict[str, Any] | None = None
) -> httpx.Response:
    return execute(mesh, context, "box_sandbox", tool, arguments or {}, kn_id="sandbox_kn")


def test_sandbox_has_no_network_unless_declared(
    mesh: RunningMesh, context: dict[str, str], sandbox_kn: str
) -> None:
    body = ok(run_sandboxed(mesh, context, "t_net"))
    assert body["error"] == "function failed" and "network access is disabled" in body["stderr"]
    assert ok(run_sandboxed(mesh, context, "t_net_declared")) == {
        "status": "ok",
        "service": "finance",
    }


def test_sandbox_enforces_wall_cpu_memory_and_output_limits(
    mesh: RunningMesh, context: dict[str, str], sandbox_kn: str
) -> None:
    wall = run_sandboxed(mesh, context, "t_wall")
    refused(wall, 504, "upstream_timeout")
    cpu = ok(run_sandboxed(mesh, context, "t_cpu"))  # a 200: killed by the CPU limit, not the wall
    assert cpu["error"] == "function failed" and cpu["exit_code"] != 0
    memory = ok(run_sandboxed(mesh, context, "t_memory"))
    assert memory["error"] == "function failed" and "MemoryError" in memory["stderr"]
    output = run_sandboxed(mesh, context, "t_output")
    assert ok(output)["error"] == "function output exceeded the output limit"
    assert receipt_for(mesh, output).outcome == "sandbox_error"


def test_function_errors_and_prints(
    mesh: RunningMesh, context: dict[str, str], sandbox_kn: str
) -> None:
    raised = run_sandboxed(mesh, context, "t_raises", {"x": 1})
    body = ok(raised)
    assert body["error"] == "function failed" and "ValueError: bad input" in body["stderr"]
    assert receipt_for(mesh, raised).outcome == "tool_error"
    # what a function prints is not its result
    assert ok(run_sandboxed(mesh, context, "t_prints", {"n": 21})) == {"n": 42}


# -- unreachable upstreams and timeouts ------------------------------------------------------


def test_unreachable_upstreams_give_a_502_envelope(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    dead_box = ev.ToolboxUpserted(
        id="box_dead",
        name="dead",
        kind="openapi",
        server_url="http://127.0.0.1:9",
        timeout_seconds=3,
        tools=(
            ev.ToolSpec(
                id="tool_dead", name="dead", openapi=ev.OpenApiOperation(method="GET", path="/x")
            ),
        ),
    )
    dead_mcp = ev.McpServerUpserted(
        id="mcp_dead",
        name="dead",
        url="http://127.0.0.1:9/mcp",
        timeout_seconds=3,
        tools=(ev.McpToolSpec(id="ping", name="ping"),),
    )
    publish(
        mesh,
        dead_box,
        dead_mcp,
        *published("box_dead", ["tool_dead"]),
        *published("mcp_dead", ["ping"], kind="mcp_server"),
        *network(
            "dead_kn",
            refs=[tool_ref("box_dead", "tool_dead"), tool_ref("mcp_dead", "ping", "mcp_tool")],
        ),
    )
    wait_until(lambda: len(search_refs(mesh, "dead_kn")) == 2)
    for owner, tool in (("box_dead", "tool_dead"), ("mcp_dead", "ping")):
        response = execute(mesh, context, owner, tool, {}, kn_id="dead_kn")
        body = refused(response, 502, "upstream_unavailable")
        assert body["message"] and body["details"]["owner_id"] == owner and body["request_id"]
        receipt = wait_receipt(mesh, lambda r, o=owner: r.owner_id == o)
        assert receipt.outcome == "upstream_error" and receipt.kn_id == "dead_kn"


def test_toolbox_timeout_aborts_a_slow_upstream(mesh: RunningMesh, context: dict[str, str]) -> None:
    response = execute(mesh, context, "box_finance", "tool_slow_op", {"seconds": 7})
    body = refused(response, 504, "upstream_timeout")
    assert "5" in body["message"]  # names the toolbox timeout in seconds
    receipt = wait_receipt(mesh, lambda r: r.tool_id == "tool_slow_op" and r.outcome == "timeout")
    assert receipt.status_code is None


# -- refusals before dispatch --------------------------------------------------------------------


def test_a_tool_bound_only_to_another_network_is_refused(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    """Must-show: box_other/tool_other_echo is mounted on other_network only."""
    echo = ("function", "box_other", "tool_other_echo")
    receipts_before = len(receipts(mesh))
    response = execute(mesh, context, "box_other", "tool_other_echo", {"message": "hi"})
    body = refused(response, 404, "capability_not_mounted")
    assert "box_other/tool_other_echo" in body["message"] and "supply_chain" in body["message"]
    assert echo not in search_refs(mesh, query="回显")
    assert len(receipts(mesh)) == receipts_before  # never dispatched
    # the same tool, on the network it is bound to, runs
    assert echo in search_refs(mesh, "other_network")
    ran = execute(
        mesh, context, "box_other", "tool_other_echo", {"message": "hi"}, kn_id="other_network"
    )
    assert ok(ran) == {"echo": "hi", "length": 2}
    assert receipt_for(mesh, ran).proxy_id == "proxy-other-network"


REFUSALS = [
    # (account, toolbox, tool, arguments, status, code, counter that must not move)
    ("viewer", *FX, FX_ARGS, 403, "network_permission_denied", "fx_convert"),
    ("subonly", *FX, FX_ARGS, 403, "network_permission_denied", "fx_convert"),  # has a tool grant
    (
        "dev",
        "box_analytics",
        "tool_abc_classify",
        {"values": [1]},
        404,
        "capability_not_mounted",
        None,
    ),
    (
        "dev",
        "box_analytics",
        "tool_fx_convert",
        FX_ARGS,
        404,
        "capability_not_mounted",
        "fx_convert",
    ),
    ("dev", "box_finance", "tool_nope", {}, 404, "capability_not_mounted", None),
    (
        "dev",
        "box_finance",
        "tool_get_invoice",
        {"invoice_id": "INV-2025-0001"},
        409,
        "tool_disabled",
        "get_invoice",
    ),
    (
        "dev",
        "box_legacy_erp",
        "tool_legacy_query_stock",
        {"material_code": "MAT-0001"},
        409,
        "owner_unpublished",
        None,
    ),
]


@pytest.mark.parametrize(
    ("account", "toolbox", "tool", "arguments", "status", "code", "counter"), REFUSALS
)
def test_failing_checks_refuse_and_never_call_the_target(
    mesh: RunningMesh,
    account: str,
    toolbox: str,
    tool: str,
    arguments: dict[str, Any],
    status: int,
    code: str,
    counter: str | None,
) -> None:
    own_context = start_interaction(mesh, account)
    before_total, before_receipts = upstream_totals(mesh), len(receipts(mesh))
    before = finance_stats(mesh)
    body = refused(
        execute(mesh, own_context, toolbox, tool, arguments, account=account), status, code
    )
    assert body["message"]
    if code == "network_permission_denied":
        assert "execute" in body["message"] and body["details"]["missing_permission"] == "execute"
    if code == "tool_disabled":
        assert "disabled" in body["message"]
    if code == "owner_unpublished":
        assert "not published" in body["message"] and "not a permission" in body["message"]
    assert upstream_totals(mesh) == before_total
    if counter:
        assert finance_stats(mesh)[counter] == before[counter]
    assert len(receipts(mesh)) == before_receipts


def test_unknown_network_is_refused(mesh: RunningMesh, context: dict[str, str]) -> None:
    refused(execute(mesh, context, *FX, FX_ARGS, kn_id="no_such_kn"), 404, "not_found")


@pytest.mark.parametrize("missing", ["kn_id", "toolbox_id", "tool_id", "arguments"])
def test_required_inputs(mesh: RunningMesh, context: dict[str, str], missing: str) -> None:
    body: dict[str, Any] = {
        "bkn_context": context,
        "kn_id": "supply_chain",
        "toolbox_id": FX[0],
        "tool_id": FX[1],
        "arguments": FX_ARGS,
    }
    del body[missing]
    before = upstream_totals(mesh)
    response = refused(mesh.call("execute_tool", body), 400, "invalid_request")
    assert missing in response["message"]
    refused(
        mesh.call(
            "execute_tool", {**body, missing: 7} if missing != "kn_id" else {**body, "kn_id": ""}
        ),
        400,
        "invalid_request",
    )
    assert upstream_totals(mesh) == before


# -- bkn_context ----------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["missing", "empty"])
def test_execution_without_context_needs_a_conversation(mesh: RunningMesh, shape: str) -> None:
    before = upstream_totals(mesh)
    response = execute(mesh, None if shape == "missing" else {}, *FX, FX_ARGS)
    body = refused(response, 400, "conversation_required")
    assert body["required_action"] == "create_conversation"
    assert "bkn_start_interaction" in body["message"]
    assert upstream_totals(mesh) == before


@pytest.mark.parametrize(
    "shape",
    [
        {"conversation_id": "conv_x"},
        {"interaction_id": "int_x"},
        {"conversation_id": "conv_x", "interactionId": "int_x"},
        {"conversation_id": "conv_x", "interaction_id": "int_x", "extra": 1},
        {"conversation_id": "", "interaction_id": "int_x"},
        "conv_x/int_x",
    ],
)
def test_partial_or_misspelt_context_is_refused_not_downgraded(
    mesh: RunningMesh, shape: Any
) -> None:
    before = upstream_totals(mesh)
    body = {
        "bkn_context": shape,
        "kn_id": "supply_chain",
        "toolbox_id": FX[0],
        "tool_id": FX[1],
        "arguments": FX_ARGS,
    }
    refused(mesh.call("execute_tool", body), 400, "invalid_bkn_context")
    assert upstream_totals(mesh) == before


def test_invented_context_ids_are_refused(mesh: RunningMesh, context: dict[str, str]) -> None:
    before = upstream_totals(mesh)
    invented = {
        "conversation_id": "conv_0123456789abcdef",
        "interaction_id": "int_0123456789abcdef",
    }
    response = execute(mesh, invented, *FX, FX_ARGS)
    assert response.status_code in (400, 404, 409), response.text
    foreign = start_interaction(mesh, "viewer")  # another account's interaction
    assert execute(mesh, foreign, *FX, FX_ARGS).status_code in (400, 403, 404, 409)
    assert upstream_totals(mesh) == before


# -- invocation id --------------------------------------------------------------------------------


def test_a_repeated_invocation_id_executes_the_upstream_once(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    """Must-show: same id + same input → the original outcome, one upstream call."""
    inv = invocation_id()
    before = finance_stats(mesh)["settle_order"]
    arguments = {"order_id": "PO-IDEM-1", "currency": "EUR", "amount": 99}
    first = execute(
        mesh, context, "box_finance", "tool_settle_order", arguments, **{INVOCATION: inv}
    )
    again = [
        execute(mesh, context, "box_finance", "tool_settle_order", arguments, **{INVOCATION: inv})
        for _ in range(3)
    ]
    assert all(ok(r) == ok(first) for r in again)
    assert {r.headers["bkn-receipt-id"] for r in again} == {first.headers["bkn-receipt-id"]}
    assert finance_stats(mesh)["settle_order"] == before + 1
    assert len([r for r in receipts(mesh) if r.receipt_id == first.headers["bkn-receipt-id"]]) == 1
    # the upstream learns the invocation and receipt ids (tool-executor's execution headers)
    ledger = httpx.get(mesh.url("finance_api") + "/_stats/executions", timeout=10).json()
    assert ledger["by_invocation"][inv] == {"count": 1, "receipts": [first.headers["bkn-receipt-id"]]}


def test_a_repeated_invocation_id_while_the_first_call_runs_waits_for_it(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    inv = invocation_id()
    before = finance_stats(mesh)["slow_op"]
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        futures = [
            pool.submit(
                execute,
                mesh,
                context,
                "box_finance",
                "tool_slow_op",
                {"seconds": 1.5},
                **{INVOCATION: inv},
            )
            for _ in range(3)
        ]
        responses = [f.result() for f in futures]
    assert [ok(r) for r in responses] == [{"requested": 1.5, "slept": 1.5}] * 3
    assert len({r.headers["bkn-receipt-id"] for r in responses}) == 1
    assert finance_stats(mesh)["slow_op"] == before + 1


def test_same_invocation_id_with_different_input_is_a_conflict(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    inv = invocation_id()
    ok(execute(mesh, context, *FX, FX_ARGS, **{INVOCATION: inv}))
    before = finance_stats(mesh)["fx_convert"]
    body = refused(
        execute(mesh, context, *FX, {**FX_ARGS, "amount": 101}, **{INVOCATION: inv}),
        409,
        "idempotency_conflict",
    )
    assert body["message"]
    refused(
        execute(mesh, context, *FX, {**FX_ARGS, "to": "EUR"}, **{INVOCATION: inv}),
        409,
        "idempotency_conflict",
    )
    assert finance_stats(mesh)["fx_convert"] == before
    # a new id is a new call
    ok(execute(mesh, context, *FX, {**FX_ARGS, "amount": 101}, **{INVOCATION: invocation_id()}))
    assert finance_stats(mesh)["fx_convert"] == before + 1


@pytest.mark.parametrize("value", ["x" * 257, "abc\u00e9", "tab\there", ""])
def test_invalid_invocation_ids_are_a_400(
    mesh: RunningMesh, context: dict[str, str], value: str
) -> None:
    before = upstream_totals(mesh)
    body = {
        "bkn_context": context,
        "kn_id": "supply_chain",
        "toolbox_id": FX[0],
        "tool_id": FX[1],
        "arguments": FX_ARGS,
    }
    with mesh.client("dev") as client:
        response = client.post(
            "/api/agent-retrieval/v1/kn/execute_tool",
            json=body,
            headers={INVOCATION: value.encode("latin-1")},
        )
    refused(response, 400, "invalid_invocation_id")
    assert upstream_totals(mesh) == before


def test_the_longest_valid_invocation_id_is_accepted(
    mesh: RunningMesh, context: dict[str, str]
) -> None:
    longest = ("~" + invocation_id() * 10)[:256]
    assert ok(execute(mesh, context, *FX, FX_ARGS, **{INVOCATION: longest}))["converted"] == 720.0
