"""Everything a tool handler may use, assembled once in bootstrap: ports, never clients."""

from __future__ import annotations

from dataclasses import dataclass, field

from bkn_common.infra.metrics import ToolCallMetrics
from gateway.service_layer.access import AccessChecker
from gateway.service_layer.ports import (
    ActionSubmissions,
    EventPublisher,
    Idempotency,
    InternalServices,
    TraceCore,
)
from gateway.service_layer.rate_limits import RateLimiter
from gateway.service_layer.registry import ToolRegistry
from gateway.settings import GatewaySettings


@dataclass
class Deps:
    settings: GatewaySettings
    services: InternalServices
    access: AccessChecker
    idempotency: Idempotency
    trace: TraceCore
    registry: ToolRegistry
    actions: ActionSubmissions
    events: EventPublisher | None = None  # Kafka producer (execute_action publishes requests)
    limits: RateLimiter | None = None  # None: no rate limits (GATEWAY_RATE_LIMIT_ENABLED=false)
    tool_calls: ToolCallMetrics = field(default_factory=ToolCallMetrics)  # /metrics by tool
