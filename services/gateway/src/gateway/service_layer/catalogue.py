"""The gateway's tool catalogue: every public tool, its input model, handler and kind.

Each tool family keeps its input models in ``domain/inputs/<family>.py``, its handlers in
``service_layer/<family>.py`` and its definitions (descriptions in a ``DESCRIPTIONS`` dict by
tool name) in ``service_layer/<family>_catalogue.py``; this module only puts them in order.
"""

from __future__ import annotations

from gateway.service_layer.actions_catalogue import action_tools
from gateway.service_layer.capabilities_catalogue import capability_tools
from gateway.service_layer.data_catalogue import data_tools
from gateway.service_layer.knowledge_base_catalogue import knowledge_base_tools
from gateway.service_layer.lifecycle_catalogue import lifecycle_tools
from gateway.service_layer.logic_properties_catalogue import logic_property_tools
from gateway.service_layer.ontology_catalogue import ontology_tools
from gateway.service_layer.registry import ToolRegistry
from gateway.service_layer.skills_catalogue import skill_tools
from gateway.settings import GatewaySettings


def build_registry(settings: GatewaySettings) -> ToolRegistry:
    return ToolRegistry([
        *lifecycle_tools(), *ontology_tools(), *logic_property_tools(), *action_tools(),
        *capability_tools(), *skill_tools(settings), *knowledge_base_tools(), *data_tools(),
    ])
