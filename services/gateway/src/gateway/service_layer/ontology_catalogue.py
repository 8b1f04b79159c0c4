"""Ontology tools of the gateway (schema, instances, subgraphs): definitions for the registry."""

from __future__ import annotations

from gateway.service_layer.registry import ToolDefinition


def ontology_tools() -> list[ToolDefinition]:
    return []
