"""``/metrics`` on the shared app: request counts by route template, consumer state, gauges."""

from __future__ import annotations

import math
from dataclasses import dataclass

import httpx
import pytest
from fastapi import APIRouter
from prometheus_client.parser import text_string_to_metric_families

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.framework.service import make_service_app
from bkn_common.infra.metrics import UNMATCHED_ROUTE, ServiceMetrics
from bkn_common.infra.settings import ServiceSettings

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def value(found: Samples, name: str, **labels: str) -> float | None:
    return found.get((name, frozenset(labels.items())))


@dataclass
class FakeProjection:
    consumer_name: str
    applied: int
    dead_lettered: int
    is_caught_up: bool
    behind: int

    def lag(self) -> int:
        return self.behind

    def progress(self) -> dict[str, object]:  # what /readyz reports of a runner
        return {"lag": self.behind}


def app_with(metrics: ServiceMetrics | None = None, projections: list[FakeProjection] | None = None,  # type: ignore[no-untyped-def]
             edge: bool = False):
    app = make_service_app(
        title="probe", settings=ServiceSettings(mesh_internal_secret="metrics-test-secret-of-enough-length-0123456789"),  # type: ignore[arg-type]
        resources=[], readiness={}, metrics=metrics, edge=edge,
        runners={p.consumer_name: p for p in projections or []},  # type: ignore[misc]
    )
    router = APIRouter()

    @router.get("/v1/things/{thing_id}")
    async def thing(thing_id: str) -> dict[str, str]:
        if thing_id == "missing":
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": thing_id})
        return {"id": thing_id}

    app.include_router(router)
    return app


async def scrape(client: httpx.AsyncClient) -> tuple[httpx.Response, Samples]:
    response = await client.get("/metrics")
    return response, samples(response.text)


def client_for(app) -> httpx.AsyncClient:  # type: ignore[no-untyped-def]
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://probe")


async def test_requests_are_counted_by_route_template_method_and_status() -> None:
    async with client_for(app_with()) as client:
        for thing in ("a", "b", "c"):
            assert (await client.get(f"/v1/things/{thing}")).status_code == 200
        assert (await client.get("/v1/things/missing")).status_code == 404
        assert (await client.get("/no/such/path")).status_code == 404
        response, found = await scrape(client)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    route = "/v1/things/{thing_id}"
    assert value(found, "bkn_http_requests_total", route=route, method="GET", status="200") == 3
    assert value(found, "bkn_http_requests_total", route=route, method="GET", status="404") == 1
    assert value(found, "bkn_http_requests_total", route=UNMATCHED_ROUTE, method="GET", status="404") == 1
    assert value(found, "bkn_http_request_duration_seconds_count", route=route, method="GET") == 4
    # raw paths never become label values
    assert not [key for key in found if ("route", "/v1/things/a") in key[1]]


async def test_an_edge_app_labels_its_requests_by_route_template_too() -> None:
    """The edge's MeshGuard drops inbound internal headers; the router's match must still
    reach the metrics middleware outside it (it once saw a copy of the scope: "(unmatched)")."""
    async with client_for(app_with(edge=True)) as client:
        assert (await client.get("/v1/things/a", headers={"X-BKN-Account": "forged"})).status_code == 200
        assert (await client.get("/healthz")).status_code == 200
        assert (await client.get("/no/such/path")).status_code == 404
        _, found = await scrape(client)
    assert value(found, "bkn_http_requests_total", route="/v1/things/{thing_id}", method="GET", status="200") == 1
    assert value(found, "bkn_http_requests_total", route="/healthz", method="GET", status="200") == 1
    assert value(found, "bkn_http_requests_total", route=UNMATCHED_ROUTE, method="GET", status="404") == 1


async def test_projection_lag_caught_up_applied_and_dead_letters_are_read_at_scrape_time() -> None:
    index = FakeProjection("capability-index", applied=10, dead_lettered=1, is_caught_up=False, behind=7)
    metrics = ServiceMetrics()
    handled = {"count": 2}
    metrics.watch_dead_letters("tool-executor-actions", lambda: handled["count"])
    async with client_for(app_with(metrics, [index])) as client:
        _, before = await scrape(client)
        index.applied, index.behind, index.is_caught_up, handled["count"] = 17, 0, True, 3
        _, after = await scrape(client)
    assert value(before, "bkn_projection_lag_records", projection="capability-index") == 7
    assert value(before, "bkn_projection_caught_up", projection="capability-index") == 0
    assert value(before, "bkn_projection_applied_total", projection="capability-index") == 10
    assert value(before, "bkn_dead_lettered_total", consumer="capability-index") == 1
    assert value(before, "bkn_dead_lettered_total", consumer="tool-executor-actions") == 2
    assert value(after, "bkn_projection_lag_records", projection="capability-index") == 0
    assert value(after, "bkn_projection_caught_up", projection="capability-index") == 1
    assert value(after, "bkn_projection_applied_total", projection="capability-index") == 17
    assert value(after, "bkn_dead_lettered_total", consumer="tool-executor-actions") == 3


async def test_a_gauge_read_at_scrape_time_that_fails_reads_nan_and_the_scrape_still_answers() -> None:
    metrics = ServiceMetrics()
    readings = [4.0]

    async def open_entries() -> float:
        if not readings:
            raise ConnectionError("redis down")
        return readings.pop()

    metrics.gauge_on_scrape("bkn_receipt_journal_open_entries", "open entries", open_entries)
    async with client_for(app_with(metrics)) as client:
        _, first = await scrape(client)
        response, second = await scrape(client)
    assert value(first, "bkn_receipt_journal_open_entries") == 4
    assert response.status_code == 200
    reading = value(second, "bkn_receipt_journal_open_entries")
    assert reading is not None and math.isnan(reading)


async def test_tool_calls_are_recorded_by_tool_and_outcome() -> None:
    metrics = ServiceMetrics()
    metrics.tool_calls.observe("search_capabilities", "ok", 0.02)
    metrics.tool_calls.observe("search_capabilities", "ok", 0.03)
    metrics.tool_calls.observe("execute_tool", "invalid_request", 0.001)
    async with client_for(app_with(metrics)) as client:
        _, found = await scrape(client)
    assert value(found, "bkn_tool_calls_total", tool="search_capabilities", outcome="ok") == 2
    seconds = value(found, "bkn_tool_call_duration_seconds_sum", tool="search_capabilities", outcome="ok")
    assert seconds == pytest.approx(0.05)
    assert value(found, "bkn_tool_calls_total", tool="execute_tool", outcome="invalid_request") == 1


async def test_two_apps_in_one_process_keep_separate_registries() -> None:
    first, second = app_with(), app_with()
    async with client_for(first) as one, client_for(second) as two:
        await one.get("/v1/things/x")
        _, found = await scrape(two)
    assert value(found, "bkn_http_requests_total", route="/v1/things/{thing_id}", method="GET", status="200") is None
