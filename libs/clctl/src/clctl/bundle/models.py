"""The network bundle format: YAML documents, each with a ``kind``.

A bundle is a file or a folder of ``*.yaml`` files; every document names its ``kind``:
``Network``, ``Schema``, ``Instances``, ``Toolbox``, ``McpServer``, ``Skill``, ``Bindings``,
``Lifecycle``. See ``docs/bundles.md``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts.events import (
    ActionTypeUpserted,
    ConceptGroupUpserted,
    DataColumn,
    DataProperty,
    DataSourceRef,
    LogicProperty,
    NetworkGrant,
    OpenApiOperation,
    ResourceGrant,
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NetworkDoc(Strict):
    kind: Literal["Network"]
    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    description: str = ""
    grants: list[NetworkGrant] = []
    resource_grants: list[ResourceGrant] = []


class ObjectTypeDoc(Strict):
    id: str
    name: str
    description: str = ""
    primary_keys: list[str] = Field(min_length=1)
    display_key: str
    properties: list[DataProperty] = Field(min_length=1)
    logic_properties: list[LogicProperty] = []
    concept_groups: list[str] = []
    data_source: DataSourceRef | None = None


class RelationTypeDoc(Strict):
    id: str
    name: str
    description: str = ""
    source: str
    target: str
    concept_groups: list[str] = []


class ActionTypeDoc(Strict):
    id: str
    name: str
    description: str = ""
    object_type: str
    toolbox: str
    tool: str
    mode: Literal["once", "per_instance"] = "per_instance"
    parameters: dict[str, Any] = {}
    concept_groups: list[str] = []


class ConceptGroupDoc(Strict):
    id: str
    name: str
    description: str = ""


class SchemaDoc(Strict):
    kind: Literal["Schema"]
    network: str
    concept_groups: list[ConceptGroupDoc] = []
    object_types: list[ObjectTypeDoc] = []
    relation_types: list[RelationTypeDoc] = []
    action_types: list[ActionTypeDoc] = []


class InstancesDoc(Strict):
    """Objects per object type (rows of properties) and relations as [source_id, target_id]."""

    kind: Literal["Instances"]
    network: str
    objects: dict[str, list[dict[str, Any]]] = {}
    relations: dict[str, list[tuple[str, str]]] = {}


class FunctionDoc(Strict):
    source: str | None = None
    source_file: str | None = None
    handler: str = "handler"
    allow_network: bool = False
    cpu_seconds: int = 5
    memory_mb: int = 256
    wall_seconds: float = 10.0


class ToolDoc(Strict):
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    openapi: OpenApiOperation | None = None
    function: FunctionDoc | None = None
    input_schema: dict[str, Any] | None = None


class ToolboxDoc(Strict):
    kind: Literal["Toolbox"]
    id: str
    name: str
    description: str = ""
    toolbox_kind: Literal["openapi", "function"]
    server_url: str | None = None
    timeout_seconds: float = 10.0
    tools: list[ToolDoc] = Field(min_length=1)


class McpToolDoc(Strict):
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    input_schema: dict[str, Any] = {}


class McpServerDoc(Strict):
    kind: Literal["McpServer"]
    id: str
    name: str
    description: str = ""
    url: str
    timeout_seconds: float = 10.0
    tools: list[McpToolDoc] = Field(min_length=1)


class SkillDoc(Strict):
    kind: Literal["Skill"]
    id: str
    name: str
    description: str = ""
    use_rule: str = ""
    entry: str
    dir: str
    category: str = ""


class BindingDoc(Strict):
    type: Literal["skill", "function", "mcp_tool"]
    id: str
    owner: str | None = None


class BindingsDoc(Strict):
    kind: Literal["Bindings"]
    network: str
    capabilities: list[BindingDoc]


class ProxyDoc(Strict):
    proxy_id: str
    synced: bool = True


class DisabledToolDoc(Strict):
    owner: str
    tool: str


class LifecycleDoc(Strict):
    """Publish states (default ``published``), disabled tools and proxy sync per network."""

    kind: Literal["Lifecycle"]
    toolboxes: dict[str, Literal["published", "offline"]] = {}
    mcp_servers: dict[str, Literal["published", "offline"]] = {}
    disabled_tools: list[DisabledToolDoc] = []
    proxies: dict[str, ProxyDoc] = {}


class DataResourceDoc(Strict):
    """A physical table: its rows are the CSV ``file`` (relative to this document)."""

    id: str = Field(pattern=r"^[A-Za-z0-9_\-]+$")
    name: str
    description: str = ""
    type: Literal["table"] = "table"
    catalog_id: str
    connector_type: str = "mysql"
    status: Literal["active", "stale", "disabled", "deprecated"] = "active"
    file: str
    columns: list[DataColumn] = Field(min_length=1)


class ResourceGrantDoc(Strict):
    account: str
    resources: list[str]  # resource ids, or "*" for every resource


class DataResourcesDoc(Strict):
    kind: Literal["DataResources"]
    resources: list[DataResourceDoc] = []
    grants: list[ResourceGrantDoc] = []


DOCUMENT_KINDS: dict[str, type[Strict]] = {
    "Network": NetworkDoc,
    "Schema": SchemaDoc,
    "Instances": InstancesDoc,
    "Toolbox": ToolboxDoc,
    "McpServer": McpServerDoc,
    "Skill": SkillDoc,
    "Bindings": BindingsDoc,
    "Lifecycle": LifecycleDoc,
    "DataResources": DataResourcesDoc,
}

__all__ = ["DOCUMENT_KINDS", "ActionTypeUpserted", "ConceptGroupUpserted"]
