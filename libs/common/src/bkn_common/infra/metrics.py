"""Prometheus metrics every service serves on ``GET /metrics`` (text exposition format).

One :class:`ServiceMetrics` per app (its own registry, so several apps in one process do not
collide). ``make_service_app`` mounts it with the HTTP middleware; services add what they know:

- ``bkn_http_requests_total`` / ``bkn_http_request_duration_seconds``: every request by route
  template (never the raw path: ids in paths would make a series per id), method and status;
- ``bkn_tool_calls_total`` / ``bkn_tool_call_duration_seconds``: tool calls by tool name and
  outcome (``ok`` or the error envelope's code; the gateway records them);
- ``bkn_projection_*``: per projection, records behind the partitions' high watermarks, whether
  the start-up replay finished, records applied;
- ``bkn_dead_lettered_total``: records a consumer sent to its dead-letter topic;
- gauges read at scrape time (``gauge_on_scrape``), e.g. tool-executor's open receipt entries.

Numbers that live in a consumer (offsets, counts) are read when Prometheus scrapes, so the hot
path pays nothing for them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Protocol

from fastapi import APIRouter
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
UNMATCHED_ROUTE = "(unmatched)"
UNKNOWN_TOOL = "(unknown)"
# request latencies of the mesh run from sub-millisecond lookups to tool calls of seconds
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class ProjectionStats(Protocol):
    """What a projection consumer exposes (``bkn_common.framework.projection.ProjectionRunner``)."""

    @property
    def consumer_name(self) -> str: ...
    @property
    def applied(self) -> int: ...
    @property
    def dead_lettered(self) -> int: ...
    @property
    def is_caught_up(self) -> bool: ...
    def lag(self) -> int: ...


class ToolCallMetrics:
    """Tool calls by tool name and outcome."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        registry = registry if registry is not None else CollectorRegistry()
        self.calls = Counter(
            "bkn_tool_calls", "Tool calls by tool and outcome (ok or the error code).",
            ["tool", "outcome"], registry=registry,
        )
        self.duration = Histogram(
            "bkn_tool_call_duration_seconds", "Tool call latency by tool and outcome.",
            ["tool", "outcome"], buckets=LATENCY_BUCKETS, registry=registry,
        )

    def observe(self, tool: str, outcome: str, seconds: float) -> None:
        self.calls.labels(tool, outcome).inc()
        self.duration.labels(tool, outcome).observe(seconds)


class _ConsumerCollector(Collector):
    """Reads projection and dead-letter counts from the consumers at scrape time."""

    def __init__(self) -> None:
        self.projections: list[ProjectionStats] = []
        self.dead_letters: dict[str, Callable[[], int]] = {}

    def collect(self) -> Iterator[Metric]:
        lag = GaugeMetricFamily(
            "bkn_projection_lag_records",
            "Records between a projection's positions and its partitions' high watermarks.",
            labels=["projection"],
        )
        caught_up = GaugeMetricFamily(
            "bkn_projection_caught_up",
            "1 once the projection replayed its topics up to the offsets seen at start.",
            labels=["projection"],
        )
        applied = CounterMetricFamily(
            "bkn_projection_applied", "Records a projection applied since start.",
            labels=["projection"],
        )
        dead = CounterMetricFamily(
            "bkn_dead_lettered", "Records a consumer sent to its dead-letter topic since start.",
            labels=["consumer"],
        )
        for runner in self.projections:
            name = runner.consumer_name
            lag.add_metric([name], runner.lag())
            caught_up.add_metric([name], 1.0 if runner.is_caught_up else 0.0)
            applied.add_metric([name], runner.applied)
            dead.add_metric([name], runner.dead_lettered)
        for consumer, count in self.dead_letters.items():
            dead.add_metric([consumer], count())
        yield from (lag, caught_up, applied, dead)


class ServiceMetrics:
    """The registry behind one service's ``/metrics``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "bkn_http_requests", "HTTP requests by route template, method and status.",
            ["route", "method", "status"], registry=self.registry,
        )
        self.request_duration = Histogram(
            "bkn_http_request_duration_seconds", "HTTP request latency by route template and method.",
            ["route", "method"], buckets=LATENCY_BUCKETS, registry=self.registry,
        )
        self.tool_calls = ToolCallMetrics(self.registry)
        self._consumers = _ConsumerCollector()
        self.registry.register(self._consumers)
        self._on_scrape: list[tuple[Gauge, Callable[[], Awaitable[float]]]] = []

    def watch_projection(self, runner: ProjectionStats) -> None:
        self._consumers.projections.append(runner)

    def watch_dead_letters(self, consumer: str, count: Callable[[], int]) -> None:
        self._consumers.dead_letters[consumer] = count

    def gauge_on_scrape(self, name: str, documentation: str, read: Callable[[], Awaitable[float]]) -> None:
        """A gauge whose value ``read`` fetches on every scrape (e.g. a Redis count)."""
        self._on_scrape.append((Gauge(name, documentation, registry=self.registry), read))

    async def exposition(self) -> bytes:
        for gauge, read in self._on_scrape:
            try:
                gauge.set(await read())
            except Exception as exc:  # a scrape must still answer; the gauge reads NaN
                log.warning("metric %s unavailable: %s", gauge._name, exc)
                gauge.set(float("nan"))
        return generate_latest(self.registry)


def metrics_router(metrics: ServiceMetrics) -> APIRouter:
    router = APIRouter()

    @router.get("/metrics", include_in_schema=False)
    async def scrape() -> Response:
        return Response(await metrics.exposition(), media_type=CONTENT_TYPE)

    return router


def route_template(scope: Scope) -> str:
    """The matched route's path template (``/v1/tools/{name}``), never the raw path. The router
    sets ``scope["route"]`` on the scope the middlewares pass on, so none of them may copy it."""
    path = getattr(scope.get("route"), "path", None)
    return path if isinstance(path, str) and path else UNMATCHED_ROUTE


class MetricsMiddleware:
    """Counts and times every HTTP request (plain ASGI: it sits on every request)."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = {"code": 500}
        recorded = False
        started = time.perf_counter()

        def record() -> None:
            nonlocal recorded
            if not recorded:
                recorded = True
                route, method = route_template(scope), scope.get("method", "GET")
                self._metrics.requests.labels(route, method, str(status["code"])).inc()
                self._metrics.request_duration.labels(route, method).observe(time.perf_counter() - started)

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                record()  # before the caller can see the answer (and scrape right after it)
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            record()  # the app failed or never finished its answer

