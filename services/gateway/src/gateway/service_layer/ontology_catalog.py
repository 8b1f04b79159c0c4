"""Ontology tools of the gateway (schema, instances, subgraphs): definitions for the registry.

``explore_subgraph`` is REST-only: the MCP business tool list of seed 003 does not name it.
"""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.ontology import (
    ExploreSubgraphInput,
    GetObjectTypesInput,
    GetRelationTypesInput,
    KnDetailInput,
    ListKnowledgeNetworksInput,
    QueryInstanceSubgraphInput,
    QueryObjectInstanceInput,
    SearchSchemaInput,
)
from gateway.service_layer import ontology
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "list_knowledge_networks": {
        "zh-CN": "列出调用者有 view_detail 权限的知识网络（ID、名称、说明与类型数量）。",
        "en-US": "List the knowledge networks the caller may view_detail (id, name, description "
                 "and type counts).",
    },
    "get_kn_detail": {
        "zh-CN": "读取知识网络概览：概念分组、对象类、关系类、行动类，以及已知时各类能力的挂载"
                 "数量。full 级别含属性与可用过滤算子。",
        "en-US": "Read a knowledge network's overview: concept groups, object, relation and "
                 "action types, and the mounted capability counts when known. The full level "
                 "adds properties and their filter operators.",
    },
    "get_object_types": {
        "zh-CN": "按 ID（或名称）批量读取对象类定义：属性、类型、可用过滤算子、主键与逻辑属性；"
                 "未匹配的列在 missing。",
        "en-US": "Read object type definitions by id (or name): properties, types, filter "
                 "operators, primary keys and logic properties; unmatched entries are listed "
                 "in missing.",
    },
    "get_relation_types": {
        "zh-CN": "按 ID（或名称）批量读取关系类定义（起点与终点对象类）；未匹配的列在 missing。",
        "en-US": "Read relation type definitions by id (or name) with their source and target "
                 "object types; unmatched entries are listed in missing.",
    },
    "search_schema": {
        "zh-CN": "用自然语言在知识网络的 Schema 中检索相关概念（对象类、关系类、行动类、指标），"
                 "只返回 Schema，不返回实例。取得的 ID 用于 query_object_instance 与 "
                 "query_instance_subgraph。",
        "en-US": "Search a knowledge network's schema in natural language for related concepts "
                 "(object, relation and action types, metrics). Returns schema only, never "
                 "instances; use the ids with query_object_instance and query_instance_subgraph.",
    },
    "query_object_instance": {
        "zh-CN": "按过滤条件、排序与分页查询单个对象类的实例。每个实例带 _instance_identity"
                 "（主键），可直接传给行动与逻辑属性。受对象类权限影响时附带 "
                 "permission_guidance。",
        "en-US": "Query one object type's instances with a filter, sort and paging. Each "
                 "instance carries _instance_identity (its primary key) for actions and logic "
                 "properties. Results affected by object-type permissions carry "
                 "permission_guidance.",
    },
    "query_instance_subgraph": {
        "zh-CN": "已知路径时按「对象类 → 关系类 → 对象类 …」路径模板批量取关联实例，可逐节点"
                 "过滤与排序；多条路径各返回一个子图，顺序与请求一致。",
        "en-US": "With a known topology, fetch related instances along object type → relation "
                 "type → object type path templates, with a filter and sort per node; each "
                 "path returns its own subgraph, in request order.",
    },
    "explore_subgraph": {
        "zh-CN": "拓扑未知时从起点对象类出发，按方向与 1-3 跳探索关联子图；limit 与分页作用于"
                 "起点，isolated_objects 是在给定方向与跳数内没有关联的起点。",
        "en-US": "With an unknown topology, explore from a start object type in a direction for "
                 "1-3 hops; limit and paging apply to start objects, and isolated_objects are "
                 "starts with no relation within that direction and hop count.",
    },
}  # fmt: skip


def ontology_tools() -> list[ToolDefinition]:
    d = DESCRIPTIONS
    return [
        ToolDefinition("list_knowledge_networks", ListKnowledgeNetworksInput,
                       d["list_knowledge_networks"], ontology.list_knowledge_networks,
                       evidence=ontology.networks_evidence),
        ToolDefinition("get_kn_detail", KnDetailInput, d["get_kn_detail"],
                       ontology.get_kn_detail, evidence=ontology.detail_evidence),
        ToolDefinition("get_object_types", GetObjectTypesInput, d["get_object_types"],
                       ontology.get_object_types, evidence=ontology.object_types_evidence),
        ToolDefinition("get_relation_types", GetRelationTypesInput, d["get_relation_types"],
                       ontology.get_relation_types, evidence=ontology.relation_types_evidence),
        ToolDefinition("search_schema", SearchSchemaInput, d["search_schema"],
                       ontology.search_schema, evidence=ontology.schema_evidence),
        ToolDefinition("query_object_instance", QueryObjectInstanceInput,
                       d["query_object_instance"], ontology.query_object_instance,
                       evidence=ontology.instances_evidence),
        ToolDefinition("query_instance_subgraph", QueryInstanceSubgraphInput,
                       d["query_instance_subgraph"], ontology.query_instance_subgraph,
                       evidence=ontology.subgraph_evidence),
        ToolDefinition("explore_subgraph", ExploreSubgraphInput, d["explore_subgraph"],
                       ontology.explore_subgraph, evidence=ontology.explore_evidence),
    ]  # fmt: skip
