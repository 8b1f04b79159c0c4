"""Wires the gateway: identity, internal services, Redis, the tool registry, REST (and MCP)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI
from redis.asyncio import Redis
from starlette.exceptions import HTTPException
from starlette.routing import Route

from bkn_common.framework.service import connected_broker, make_service_app, service_telemetry
from bkn_common.infra.kafka import EventPublisher, make_broker
from bkn_common.infra.mesh_auth import signer_from
from bkn_common.infra.metrics import ServiceMetrics
from bkn_common.infra.redis import make_redis, redis_ready
from gateway.adapters.action_submissions import RedisActionSubmissions
from gateway.adapters.console_sessions import RedisConsoleSessions
from gateway.adapters.idempotency import RedisIdempotency
from gateway.adapters.identity import Authenticator
from gateway.adapters.internal import HttpServices
from gateway.adapters.mesh_stats import HttpMeshStats
from gateway.adapters.rate_limit import RedisRateLimiter
from gateway.adapters.sessions import RedisSessionStore
from gateway.adapters.trace_core import RemoteTraceCore
from gateway.entrypoints import mcp_info, observability, openapi, openapi_kb, rest
from gateway.entrypoints.console import routes as console
from gateway.entrypoints.mcp_http import McpEndpointApp, running, session_manager
from gateway.entrypoints.mcp_server import build_server
from gateway.service_layer.access import AccessChecker
from gateway.service_layer.catalog import build_registry
from gateway.service_layer.deps import Deps
from gateway.service_layer.observability import Observability
from gateway.service_layer.rate_limits import BucketRates, RateLimiter
from gateway.settings import GatewaySettings


def internal_services(settings: GatewaySettings) -> HttpServices:
    return HttpServices(
        capability_index=settings.capability_index_url,
        tool_executor=settings.tool_executor_url,
        trace_recorder=settings.trace_recorder_url,
        ontology_query=settings.ontology_query_url,
        knowledge_base=settings.knowledge_base_url,
        timeout=settings.internal_timeout_seconds,
        keepalive_seconds=settings.internal_keepalive_seconds,
        signer=signer_from(settings),
    )


def redis_prefix(settings: GatewaySettings) -> str:
    return f"bkn:{settings.topic_prefix}gateway:"


def build_deps(settings: GatewaySettings, services: HttpServices, redis: Redis) -> Deps:
    """The handlers' ports, on the internal services' HTTP clients and Redis."""
    prefix = redis_prefix(settings)
    return Deps(
        settings=settings,
        services=services,
        access=AccessChecker(services.ontology_query, settings.access_cache_seconds),
        idempotency=RedisIdempotency(redis, prefix, settings.idempotency_ttl_seconds),
        trace=RemoteTraceCore(services.trace_recorder, redis, prefix),
        registry=build_registry(settings),
        actions=RedisActionSubmissions(redis, prefix),
        limits=rate_limiter(settings, redis, prefix),
    )


def mesh_stats(settings: GatewaySettings, services: HttpServices) -> HttpMeshStats:
    """The projection services' own reports, for the operator API."""
    names = {"capability-index": "capability_index", "tool-executor": "tool_executor",
             "trace-recorder": "trace_recorder", "ontology-query": "ontology_query",
             "knowledge-base": "knowledge_base"}
    return HttpMeshStats({n: getattr(settings, f"{a}_url") for n, a in names.items()},
                         {n: getattr(services, a) for n, a in names.items()})


def rate_limiter(settings: GatewaySettings, redis: Redis, prefix: str) -> RateLimiter | None:
    if not settings.rate_limit_enabled:
        return None
    return RedisRateLimiter(
        redis, prefix,
        BucketRates(settings.rate_limit_account_per_second, settings.rate_limit_account_burst),
        BucketRates(settings.rate_limit_tool_per_second, settings.rate_limit_tool_burst),
    )


def build_app(settings: GatewaySettings) -> FastAPI:
    provider, telemetry = service_telemetry(settings)
    services = internal_services(settings)
    redis = make_redis(settings)
    deps = build_deps(settings, services, redis)
    broker = make_broker(settings, provider)
    deps.events = EventPublisher(broker, settings.topic_prefix)
    authenticator = Authenticator(settings)
    stats = mesh_stats(settings, services)
    operator_reads = Observability(services.trace_recorder, stats)

    sessions = RedisSessionStore(redis, redis_prefix(settings))
    endpoints = [
        McpEndpointApp(name, session_manager(build_server(deps, authenticator, name)), sessions,
                       authenticator, settings)
        for name in ("full", "compact")
    ]

    @asynccontextmanager
    async def mcp_sessions() -> AsyncIterator[None]:
        async with running(*(e.manager for e in endpoints)):
            yield

    @asynccontextmanager
    async def clients() -> AsyncIterator[None]:
        try:
            yield
        finally:
            await deps.trace.drain()
            await services.close()
            await stats.close()
            await redis.aclose()

    async def redis_check() -> bool:
        return await redis_ready(redis)

    def service_check(name: str):  # type: ignore[no-untyped-def]
        async def check() -> bool:
            return await services.ready(getattr(services, name))

        return check

    metrics = ServiceMetrics()
    deps.tool_calls = metrics.tool_calls
    app = make_service_app(
        title="gateway",
        settings=settings,
        resources=[*telemetry, clients, partial(connected_broker, broker), mcp_sessions],
        readiness={
            "redis": redis_check,
            **{n: service_check(n) for n in ("capability_index", "tool_executor", "ontology_query")},
        },
        edge=True,
        metrics=metrics,
    )
    app.include_router(rest.router(deps, authenticator))
    app.include_router(openapi.router(deps.registry))
    app.include_router(openapi_kb.router(deps, authenticator))
    app.add_exception_handler(HTTPException, openapi_kb.routing_refusal)
    app.include_router(mcp_info.router(deps.registry, authenticator, settings.public_url))
    app.include_router(observability.router(operator_reads, authenticator))
    app.include_router(console.router(
        operator_reads, authenticator,
        RedisConsoleSessions(redis, redis_prefix(settings), settings.console_session_seconds),
        settings.console_session_seconds))
    for endpoint in endpoints:
        app.router.routes.append(
            Route(mcp_info.PATHS[endpoint.endpoint], endpoint=endpoint, methods=["GET", "POST", "DELETE"])
        )
    app.state.deps = deps
    return app
