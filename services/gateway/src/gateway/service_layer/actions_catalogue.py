"""Logic-property and action tools of the gateway: definitions for the registry."""

from __future__ import annotations

from gateway.service_layer.registry import ToolDefinition


def action_tools() -> list[ToolDefinition]:
    return []
