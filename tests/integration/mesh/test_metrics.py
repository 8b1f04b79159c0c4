"""Issue 12: every service of a running mesh serves Prometheus text on ``GET /metrics``,
unauthenticated, with requests by route, the gateway's tool calls by tool and outcome, each
projection's lag and caught-up state, dead letters, and tool-executor's open receipt entries."""

from __future__ import annotations

import math

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.support.mesh import RunningMesh

Samples = list[tuple[str, dict[str, str], float]]


def scrape(port: int) -> Samples:
    response = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)  # no Authorization
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return [(s.name, s.labels, s.value) for f in text_string_to_metric_families(response.text) for s in f.samples]


def named(samples: Samples, name: str, **labels: str) -> list[float]:
    return [v for n, got, v in samples if n == name and labels.items() <= got.items()]


def test_every_service_serves_metrics_with_its_requests_and_projections(mesh: RunningMesh) -> None:
    services = [p for p in mesh.layout.services() if "-m" in p.command]
    assert {p.name for p in services} >= {
        "gateway", "capability-index", "tool-executor", "trace-recorder", "ontology-query"
    }
    for process in services:
        httpx.get(f"http://127.0.0.1:{process.port}/readyz", timeout=10)
        samples = scrape(process.port)
        readyz = named(samples, "bkn_http_requests_total", route="/readyz", method="GET")
        assert readyz and sum(readyz) >= 1, process.name
        assert named(samples, "bkn_http_request_duration_seconds_count", route="/readyz"), process.name
        if process.name == "gateway":  # the edge: no projection of its own
            continue
        caught_up = [(labels["projection"], v) for n, labels, v in samples if n == "bkn_projection_caught_up"]
        assert caught_up == [(process.name, 1.0)], process.name
        (lag,) = named(samples, "bkn_projection_lag_records", projection=process.name)
        assert lag >= 0
        assert named(samples, "bkn_dead_lettered_total", consumer=process.name) == [0.0]
    index = scrape(next(p.port for p in services if p.name == "capability-index"))
    (applied,) = named(index, "bkn_projection_applied_total", projection="capability-index")
    assert applied > 0  # the demo bundle's catalogue


def test_gateway_counts_tool_calls_by_tool_and_outcome(mesh: RunningMesh) -> None:
    gateway = next(p.port for p in mesh.layout.services() if p.name == "gateway")
    before = scrape(gateway)
    assert mesh.call("search_capabilities", {"kn_id": "supply_chain"}).status_code == 200
    unknown = mesh.call("no_such_tool_for_metrics", {})
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_tool"
    after = scrape(gateway)

    def calls(samples: Samples, tool: str, outcome: str) -> float:
        return sum(named(samples, "bkn_tool_calls_total", tool=tool, outcome=outcome))

    assert calls(after, "search_capabilities", "ok") == calls(before, "search_capabilities", "ok") + 1
    assert calls(after, "(unknown)", "unknown_tool") == calls(before, "(unknown)", "unknown_tool") + 1
    assert not named(after, "bkn_tool_calls_total", tool="no_such_tool_for_metrics")
    # the gateway's requests are labelled by route template, never by raw path
    route = "/api/agent-retrieval/v1/kn/{tool_name}"
    assert sum(named(after, "bkn_http_requests_total", route=route, method="POST", status="200")) >= 1
    assert sum(named(after, "bkn_http_requests_total", route=route, method="POST", status="404")) >= 1
    assert not named(after, "bkn_http_requests_total", route="(unmatched)", status="200")
    assert not [labels for _, labels, _ in after if "/kn/no_such_tool_for_metrics" in labels.get("route", "")]


def test_tool_executor_reports_open_receipt_entries_and_action_dead_letters(mesh: RunningMesh) -> None:
    executor = next(p.port for p in mesh.layout.services() if p.name == "tool-executor")
    samples = scrape(executor)
    (open_entries,) = named(samples, "bkn_receipt_journal_open_entries")
    assert not math.isnan(open_entries) and open_entries >= 0
    assert named(samples, "bkn_dead_lettered_total", consumer="tool-executor-actions") == [0.0]
