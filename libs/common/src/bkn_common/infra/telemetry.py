"""Telemetry wired once: a tracer provider per service, OTLP export when configured.

Extra span processors (such as the Kafka span exporter of the trace core) are added by the
caller through ``processors``.
"""

from __future__ import annotations

from collections.abc import Iterable

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from bkn_common.infra.settings import ServiceSettings


def setup_telemetry(
    settings: ServiceSettings, processors: Iterable[SpanProcessor] = ()
) -> TracerProvider:
    """Create the service's tracer provider and install it globally."""
    provider = build_tracer_provider(settings, processors)
    trace.set_tracer_provider(provider)
    return provider


def build_tracer_provider(
    settings: ServiceSettings, processors: Iterable[SpanProcessor] = ()
) -> TracerProvider:
    """The service's tracer provider: OTLP/HTTP export when an endpoint is configured."""
    attributes = resource_attributes(settings.otel_resource_attributes)
    provider = TracerProvider(
        resource=Resource.create({**attributes, "service.name": settings.service_name}),
    )
    if not settings.otel_sdk_disabled:
        if settings.otel_exporter_otlp_endpoint:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            endpoint = settings.otel_exporter_otlp_endpoint.rstrip("/") + "/v1/traces"
            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
        for processor in processors:
            provider.add_span_processor(processor)
    return provider


def resource_attributes(text: str) -> dict[str, str]:
    """``OTEL_RESOURCE_ATTRIBUTES`` (``k=v,k2=v2``) as a dict; an entry without ``=`` is skipped."""
    pairs = (item.split("=", 1) for item in text.split(",") if "=" in item)
    return {key.strip(): value.strip() for key, value in pairs if key.strip()}
