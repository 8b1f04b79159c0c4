"""What MCP costs over REST: the same managed search_capabilities both ways; tools/list sizes.

    python bench/mcp_vs_rest.py [--n 300] [--warmup 30]

One private mesh (a free port block, own topics). One interaction is started and its
``bkn_context`` is passed on every call of both transports, so REST and MCP do exactly the
same managed work (an Operation, a receipt and evidence per call):

* on the wire (the server's cost): REST ``POST /api/agent-retrieval/v1/kn/search_capabilities``
  and MCP ``tools/call`` (session flow and 2026-07-28 stateless flow), all three sent by one
  aiohttp client (bench/mcp_wire.py), so the difference is what the gateway adds for MCP;
* with the official clients (what a Python host sees, client cost included): REST with
  httpx, MCP ``tools/call`` on one initialized session of the official client (handshake
  flow) and in its 2026-07-28 flow;
* for reference, REST ad hoc (no bkn_context).

Calls are sequential; the transports are interleaved call by call (alternating which goes
first) so drift of the mesh hits all of them alike. Every call must succeed.

tools/list of /mcp and /mcp-compact: bytes of the JSON result (compact JSON, UTF-8, per
language) and tokens estimated as bytes / 4 (exact tiktoken counts only where tiktoken is
installed; it is not a dependency of the project).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from bench.harness import bench_mesh, latency_summary, print_table, write_result
from bench.mcp_wire import SESSION_FLOW, STATELESS_FLOW, WireMcp

API = "/api/agent-retrieval/v1"
SEARCH = {"kn_id": "supply_chain", "query": "汇率"}
ENDPOINTS = {"full": f"{API}/mcp", "compact": f"{API}/mcp-compact"}

Call = Callable[[], Awaitable[None]]
WIRE_REST = "wire: rest (managed)"
WIRE_SESSION = "wire: mcp tools/call (session)"
WIRE_STATELESS = "wire: mcp tools/call (2026 stateless)"
REST = "httpx: rest (managed)"
MCP_SESSION = "official client: mcp tools/call (session)"
MCP_STATELESS = "official client: mcp tools/call (2026 stateless)"
REST_AD_HOC = "httpx: rest (ad hoc, reference)"
BASELINE = {WIRE_SESSION: WIRE_REST, WIRE_STATELESS: WIRE_REST, MCP_SESSION: REST,
            MCP_STATELESS: REST, REST_AD_HOC: REST}
# trace-recorder allows 128 Operations per Interaction; each round makes 6 managed calls.
ROUNDS_PER_INTERACTION = 20


def _mcp_client(gateway: str, key: str, path: str, mode: str, language: str = "zh-CN") -> Client:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {key}", "Accept-Language": language}, timeout=60
    )
    return Client(streamable_http_client(gateway + path, http_client=http), mode=mode)


async def _measure(
    calls: dict[str, Call], n: int, warmup: int, between: Callable[[int], Awaitable[None]]
) -> dict[str, list[float]]:
    """``between(i)`` runs untimed before round ``i`` (warm-up rounds count first)."""
    names = list(calls)
    for i in range(warmup):
        await between(i)
        for name in names:
            await calls[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    for i in range(n):
        await between(warmup + i)
        for name in names if i % 2 == 0 else names[::-1]:
            started = time.perf_counter()
            await calls[name]()
            samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def _tokens(text: str) -> int | None:
    if importlib.util.find_spec("tiktoken") is None:
        return None
    import tiktoken

    return len(tiktoken.get_encoding("cl100k_base").encode(text))


async def _listing_sizes(gateway: str, key: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for language in ("zh-CN", "en-US"):
        for endpoint, path in ENDPOINTS.items():
            async with _mcp_client(gateway, key, path, "legacy", language) as client:
                listed = await client.list_tools()
            result = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
            text = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
            size = len(text.encode())
            rows.append({
                "endpoint": endpoint, "language": language, "tools": len(listed.tools),
                "bytes": size, "tokens_est_bytes_div_4": round(size / 4),
                "tokens_tiktoken": _tokens(text),
            })
    for row in rows:
        full = next(r for r in rows if r["endpoint"] == "full" and r["language"] == row["language"])
        row["ratio_compact_over_full"] = round(row["bytes"] / full["bytes"], 3)
    return rows


async def _run(gateway: str, key: str, n: int, warmup: int) -> dict[str, Any]:
    errors: dict[str, int] = {}
    first_error: dict[str, Any] = {}
    turns: list[dict[str, Any]] = []
    rest = httpx.AsyncClient(
        base_url=gateway + API, headers={"Authorization": f"Bearer {key}"}, timeout=60
    )
    session = _mcp_client(gateway, key, ENDPOINTS["full"], "legacy")
    modern = _mcp_client(gateway, key, ENDPOINTS["full"], "auto")

    def failed(name: str, detail: Any) -> None:
        errors[name] = errors.get(name, 0) + 1
        first_error.setdefault(name, detail)

    wire = aiohttp.ClientSession(
        headers={"Authorization": f"Bearer {key}", "Accept-Language": "zh-CN"},
        connector=aiohttp.TCPConnector(limit=1),
    )
    url = gateway + ENDPOINTS["full"]
    async with rest, session as mcp, modern as stateless, wire, \
            WireMcp(wire, url, SESSION_FLOW) as wire_session, \
            WireMcp(wire, url, STATELESS_FLOW) as wire_stateless:
        managed: dict[str, Any] = {**SEARCH}

        async def finish() -> None:
            finished = await mcp.call_tool("bkn_finish_interaction", {
                **managed["bkn_context"], "outcome": "completed", "answer": "bench"})
            assert not finished.is_error, finished.structured_content
            turns.append(dict(finished.structured_content or {}))

        async def next_turn(i: int) -> None:
            """A fresh interaction (same conversation) every ROUNDS_PER_INTERACTION rounds."""
            if i % ROUNDS_PER_INTERACTION:
                return
            arguments: dict[str, Any] = {
                "question": f"基准：汇率相关能力（第 {i // ROUNDS_PER_INTERACTION + 1} 轮）",
                "agent_name": "bench-mcp-vs-rest", "conversation_mode": "new"}
            if "bkn_context" in managed:
                await finish()
                arguments["conversation_mode"] = "continue"
                arguments["conversation_id"] = managed["bkn_context"]["conversation_id"]
            started = await mcp.call_tool("bkn_start_interaction", arguments)
            assert not started.is_error and started.structured_content, started
            managed["bkn_context"] = {
                k: started.structured_content[k] for k in ("conversation_id", "interaction_id")}

        def rest_call(name: str, managed_call: bool) -> Call:
            async def call() -> None:
                body = managed if managed_call else SEARCH
                response = await rest.post("/kn/search_capabilities", json=body)
                good = response.status_code == 200 and response.json().get("capabilities")
                if not good or managed_call != ("bkn-receipt-id" in response.headers):
                    failed(name, {"status": response.status_code, "body": response.text[:300]})

            return call

        def wire_rest_call(name: str) -> Call:
            async def call() -> None:
                async with wire.post(gateway + API + "/kn/search_capabilities",
                                     data=json.dumps(managed),
                                     headers={"Content-Type": "application/json"}) as response:
                    body = await response.read()
                    good = response.status == 200 and json.loads(body).get("capabilities")
                    if not good or "bkn-receipt-id" not in response.headers:
                        failed(name, {"status": response.status, "body": body[:300]})

            return call

        def wire_mcp_call(name: str, client: WireMcp) -> Call:
            async def call() -> None:
                result = await client.call_tool("search_capabilities", managed)
                content = result.get("structuredContent") or {}
                if result.get("isError") or not (content.get("capabilities") and content.get("bkn_receipt")):
                    failed(name, content)

            return call

        def mcp_call(name: str, client: Client) -> Call:
            async def call() -> None:
                result = await client.call_tool("search_capabilities", managed)
                content = result.structured_content or {}
                good = content.get("capabilities") and content.get("bkn_receipt")
                if result.is_error or not good:
                    failed(name, content)

            return call

        calls = {
            WIRE_REST: wire_rest_call(WIRE_REST),
            WIRE_SESSION: wire_mcp_call(WIRE_SESSION, wire_session),
            WIRE_STATELESS: wire_mcp_call(WIRE_STATELESS, wire_stateless),
            REST: rest_call(REST, True),
            MCP_SESSION: mcp_call(MCP_SESSION, mcp),
            MCP_STATELESS: mcp_call(MCP_STATELESS, stateless),
            REST_AD_HOC: rest_call(REST_AD_HOC, False),
        }
        samples = await _measure(calls, n, warmup, next_turn)
        await finish()
        protocol = {"session": mcp.protocol_version, "stateless": stateless.protocol_version}
    sizes = await _listing_sizes(gateway, key)
    return {"samples": samples, "errors": errors, "first_error": first_error, "protocol": protocol,
            "sizes": sizes, "interactions": len(turns),
            "operations_recorded": sum(int(t.get("operations") or 0) for t in turns),
            "evidence_status": sorted({str(t.get("evidence_status")) for t in turns})}


def main(n: int = 300, warmup: int = 30) -> dict[str, Any]:
    with bench_mesh("mcp") as (layout, key, _keys):
        measured = asyncio.run(_run(layout.gateway_url, key, n, warmup))
    summaries = {name: latency_summary(s) for name, s in measured["samples"].items()}
    added_p50 = {name: summaries[name]["p50_ms"] - summaries[base]["p50_ms"]
                 for name, base in BASELINE.items()}
    rows = [
        {"transport": name, "n": int(s["n"]), "p50_ms": s["p50_ms"], "p90_ms": s["p90_ms"],
         "p99_ms": s["p99_ms"], "mean_ms": s["mean_ms"],
         "added_p50_ms_vs_rest_same_client": added_p50.get(name, 0.0),
         "errors": measured["errors"].get(name, 0)}
        for name, s in summaries.items()
    ]
    print_table(f"search_capabilities (kn supply_chain, query 汇率), sequential, N={n}", rows)
    tiktoken_note = (
        "tiktoken cl100k_base" if importlib.util.find_spec("tiktoken")
        else "tiktoken is not installed: tokens are only estimated as bytes/4"
    )
    print_table("tools/list result size: /mcp-compact vs /mcp", measured["sizes"])
    print(f"   tokens: {tiktoken_note}")
    print(f"   the gateway's cost of MCP over REST (same wire client), p50: session flow "
          f"{added_p50[WIRE_SESSION]:+.2f} ms, stateless flow {added_p50[WIRE_STATELESS]:+.2f} ms; "
          f"with the official Python client vs httpx: {added_p50[MCP_SESSION]:+.2f} / "
          f"{added_p50[MCP_STATELESS]:+.2f} ms")
    print(f"   protocols {measured['protocol']}; {measured['interactions']} interactions, "
          f"{measured['operations_recorded']} operations recorded")
    for name, detail in measured["first_error"].items():
        print(f"   FAILED calls of {name}: {measured['errors'][name]}; first: {detail}")
    payload = {
        "n": n, "warmup": warmup, "query": SEARCH,
        "managed": "bkn_context on every call of REST and MCP alike; one conversation, a new "
                   "interaction (untimed) every ROUNDS_PER_INTERACTION rounds",
        "protocol_versions": measured["protocol"],
        "latency": summaries,
        "added_p50_ms": added_p50,
        "added_p50_baseline": BASELINE,
        "errors": measured["errors"],
        "first_error": measured["first_error"],
        "interactions": measured["interactions"],
        "rounds_per_interaction": ROUNDS_PER_INTERACTION,
        "operations_recorded": measured["operations_recorded"],
        "evidence_status": measured["evidence_status"],
        "tools_list": measured["sizes"],
        "tokens_method": tiktoken_note,
    }
    path = write_result("mcp_vs_rest", payload)
    print(f"   wrote {path.relative_to(path.parents[2])}")
    return payload


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    arguments = parser.parse_args()
    main(arguments.n, arguments.warmup)
