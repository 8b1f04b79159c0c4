"""Managed turns over REST for the operator API and console tests, and waiting for the trace."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx

from tests.support.mesh import RunningMesh

API = "/api/agent-observability/v1"
FX = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_fx_convert",
      "arguments": {"amount": 10, "from": "USD", "to": "CNY"}}
BAD_INVOICE = {"kn_id": "supply_chain", "toolbox_id": "box_finance", "tool_id": "tool_get_invoice",
               "arguments": {"invoice_id": "<script>alert('x')</script>"}}


def turn(mesh: RunningMesh, account: str, agent: str, calls: list[tuple[str, dict[str, Any]]],
         question: str = "What is 10 USD in CNY?", answer: str = "72 CNY") -> dict[str, str]:
    """start → each (tool, body) → finish completed; the turn's ids."""
    started = mesh.call("bkn_start_interaction", {"question": question, "agent_name": agent,
                                                   "conversation_mode": "new"}, account=account)
    assert started.status_code == 200, started.text
    ctx = {k: started.json()[k] for k in ("conversation_id", "interaction_id")}
    for tool, body in calls:
        mesh.call(tool, {**body, "bkn_context": ctx}, account=account)
    finished = mesh.call("bkn_finish_interaction", {**ctx, "outcome": "completed", "answer": answer},
                         account=account)
    assert finished.status_code == 200, finished.text
    return ctx


def two_tool_turn(mesh: RunningMesh, account: str = "dev", agent: str = "console-agent") -> dict[str, str]:
    """A turn with one execution that succeeds and one that fails (an unknown invoice whose id
    is a script tag: hostile input for the console)."""
    return turn(mesh, account, agent, [("execute_tool", FX), ("execute_tool", BAD_INVOICE)])


def operator(mesh: RunningMesh) -> httpx.Client:
    return mesh.client("operator")


def eventually(read: Callable[[], Any], ready: Callable[[Any], bool], seconds: float = 30) -> Any:
    """``read()`` until ``ready`` holds for what it returns (the receipts reach trace-recorder
    through Kafka); the last value when it never does."""
    deadline = time.monotonic() + seconds
    value = read()
    while not ready(value) and time.monotonic() < deadline:
        time.sleep(0.3)
        value = read()
    return value


def settled(interaction: dict[str, Any]) -> bool:
    """Every operation final and the receipt of each execution that ran landed (a refused
    execution has none)."""
    ops = interaction.get("operations", [])
    return bool(ops) and all(op["receipt_status"] != "pending" for op in ops) and all(
        op["execution_receipts"] for op in ops
        if op["tool_name"] == "execute_tool" and op["receipt_status"] == "completed")
