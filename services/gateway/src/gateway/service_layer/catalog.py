"""The gateway's tool catalogue: every public tool, its input model, handler and kind.

Each tool family keeps its input models in ``domain/inputs/<family>.py``, its handlers in
``service_layer/<family>.py`` and its definitions (descriptions in a ``DESCRIPTIONS`` dict by
tool name) in ``service_layer/<family>_catalog.py``; this module only puts them in order.
"""

from __future__ import annotations

from gateway.service_layer.actions_catalog import action_tools
from gateway.service_layer.capabilities_catalog import capability_tools
from gateway.service_layer.data_catalog import data_tools
from gateway.service_layer.knowledge_base_catalog import knowledge_base_tools
from gateway.service_layer.lifecycle_catalog import lifecycle_tools
from gateway.service_layer.logic_properties_catalog import logic_property_tools
from gateway.service_layer.ontology_catalog import ontology_tools
from gateway.service_layer.registry import ToolRegistry
from gateway.service_layer.skills_catalog import skill_tools
from gateway.settings import GatewaySettings


def build_registry(settings: GatewaySettings) -> ToolRegistry:
    return ToolRegistry([
        *lifecycle_tools(), *ontology_tools(), *logic_property_tools(), *action_tools(),
        *capability_tools(), *skill_tools(settings), *knowledge_base_tools(), *data_tools(),
    ])
