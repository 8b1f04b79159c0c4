"""Inputs of the ontology tools: networks, schema, instances and subgraphs.

Values whose refusals have their own codes (limit, offset, path_length, direction, sort,
condition) are checked by ontology-query, not here, so each 400 carries the code the API
documents; their bounds and enums still appear in the published JSON schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from gateway.domain.inputs.base import ToolInput, described

KN_ID = ("知识网络 ID。", "Knowledge network id.")
CONDITION = (
    "过滤条件。逻辑算子（and / or）用 sub_conditions 组合；叶子条件用 field + operation + "
    "value + value_from（value 与 value_from 成对出现，value_from 目前只支持 const）。"
    "可用算子以属性的 condition_operations 为准（见 get_object_types）。",
    "Filter. Combine with and / or over sub_conditions; a leaf is field + operation + value + "
    "value_from (value and value_from go together; value_from is const). The operators allowed "
    "per property are its condition_operations (see get_object_types).",
)
SORT_SCHEMA: dict[str, Any] = {
    "items": {
        "type": "object",
        "properties": {"field": {"type": "string"},
                       "direction": {"type": "string", "enum": ["asc", "desc"]}},
        "required": ["field"],
    },
}  # fmt: skip


def _limit(zh: str, en: str, default: int = 10) -> Any:
    """An optional 1-10000 limit, range-checked by ontology-query (its own error code)."""
    bounds = {"minimum": 1, "maximum": 10_000, "default": default}
    return described(zh, en, default=None, json_schema_extra=bounds)


def _sort(zh: str, en: str) -> Any:
    return described(zh, en, default=None, json_schema_extra=SORT_SCHEMA)


class ListKnowledgeNetworksInput(ToolInput):
    name_pattern: str | None = described(
        "可选。按名称或 ID 子串过滤（不区分大小写）。",
        "Optional. Case-insensitive substring of the name or id.",
        default=None,
    )
    limit: int = described(
        "最多返回多少个，1-1000，默认 20。",
        "At most this many, 1-1000, default 20.",
        default=20, ge=1, le=1000,
    )  # fmt: skip
    offset: int = described(
        "跳过前多少个，默认 0。", "Skip this many first, default 0.", default=0, ge=0
    )


class KnDetailInput(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    detail_level: Literal["summary", "full"] = described(
        "summary 只给概念分组与各类型的 ID、名称、说明；full 另给属性（含 "
        "condition_operations）、主键、逻辑属性与行动类详情。",
        "summary gives concept groups and each type's id, name and description; full adds "
        "properties (with condition_operations), primary keys, logic properties and action "
        "details.",
        default="summary",
    )


class GetObjectTypesInput(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    ids: list[str] | None = described(
        "对象类 ID 列表；某项不是 ID 但等于某个对象类名称时按名称匹配，未匹配的列在 "
        "missing。不传返回全部。",
        "Object type ids; an entry that is no id but equals a type's name matches by name. "
        "Unmatched entries are listed in missing. Omit for all.",
        default=None,
    )


class GetRelationTypesInput(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    ids: list[str] | None = described(
        "关系类 ID 列表；某项不是 ID 但等于某个关系类名称时按名称匹配，未匹配的列在 "
        "missing。不传返回全部。",
        "Relation type ids; an entry that is no id but equals a type's name matches by name. "
        "Unmatched entries are listed in missing. Omit for all.",
        default=None,
    )


class SearchSchemaInput(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    query: str = described(
        "自然语言或关键词，中英文均可。",
        "Natural language or keywords, Chinese or English.",
        min_length=1,
    )
    search_object_types: bool = described(
        "是否检索对象类，默认 true。", "Search object types (default true).", default=True
    )
    search_relation_types: bool = described(
        "是否检索关系类，默认 true。", "Search relation types (default true).", default=True
    )
    search_action_types: bool = described(
        "是否检索行动类，默认 true。", "Search action types (default true).", default=True
    )
    search_metrics: bool = described(
        "是否检索指标（kind 为 metric 的逻辑属性），默认 true。四个开关全为 false 返回 400。",
        "Search metrics (logic properties of kind metric), default true. All four false is "
        "a 400.",
        default=True,
    )
    concept_groups: list[str] | None = described(
        "可选。只在这些概念分组内检索。",
        "Optional. Only concepts in these concept groups.",
        default=None,
    )
    max_concepts: int = described(
        "最多返回多少个概念（各类合计），1-100，默认 10。",
        "At most this many concepts over all kinds, 1-100, default 10.",
        default=10, ge=1, le=100,
    )  # fmt: skip


class _InstanceRead(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    include_logic_params: bool = described(
        "是否返回逻辑属性的计算参数（logic_params）。默认 false，结果不含逻辑属性。",
        "Return the computation parameters of logic properties (logic_params). Default "
        "false: no logic properties.",
        default=False,
    )


class QueryObjectInstanceInput(_InstanceRead):
    ot_id: str = described("对象类 ID。", "Object type id.", min_length=1)
    condition: dict[str, Any] | None = described(*CONDITION, default=None)
    sort: list[dict[str, Any]] | None = _sort(
        "排序，按数组顺序依次比较，最后按实例 ID。",
        "Sort keys compared in order, then by instance id.",
    )
    limit: int | None = _limit(
        "返回实例数，1-10000，默认 10。", "Instances to return, 1-10000, default 10."
    )
    offset: int | None = described(
        "偏移翻页。与 cursor 互斥。",
        "Offset paging; exclusive with cursor.",
        default=None, json_schema_extra={"minimum": 0},
    )  # fmt: skip
    cursor: str | None = described(
        "游标翻页：上一页返回的 next_cursor 原值（不透明）。",
        "Cursor paging: the next_cursor of the previous page, unchanged (opaque).",
        default=None,
    )
    need_total: bool = described(
        "是否计算 total_count（匹配总数），默认 false。",
        "Compute total_count (all matches); default false.",
        default=False,
    )
    properties: list[str] | None = described(
        "只返回这些属性（_instance_identity 总会返回）。",
        "Return only these properties (_instance_identity is always returned).",
        default=None,
    )


class PathNode(ToolInput):
    id: str = described(
        "对象类 ID（没有过滤条件也必须占位）。",
        "Object type id (keep it even without a filter).",
        min_length=1,
    )
    condition: dict[str, Any] | None = described(*CONDITION, default=None)
    sort: list[dict[str, Any]] | None = _sort("该节点实例的排序。", "Sort of the node's instances.")
    limit: int | None = _limit(
        "该节点最多取多少实例，1-10000，默认 10。",
        "At most this many instances at this node, 1-10000, default 10.",
    )


class PathEdge(ToolInput):
    relation_type_id: str = described("关系类 ID。", "Relation type id.", min_length=1)
    source_object_type_id: str | None = described(
        "可省略：本次遍历从哪个节点走（即 object_types[i].id），不是关系类定义的起点。",
        "Optional: the node this step walks from (object_types[i].id), not the relation "
        "type's own source.",
        default=None,
    )
    target_object_type_id: str | None = described(
        "可省略：本次遍历走到哪个节点（即 object_types[i+1].id）。",
        "Optional: the node this step walks to (object_types[i+1].id).",
        default=None,
    )
    direction: str | None = described(
        "可省略；只有自引用关系类要反向走时才写 backward。",
        "Optional; only a self-referencing relation type walked backward needs backward.",
        default=None, json_schema_extra={"enum": ["forward", "backward"]},
    )  # fmt: skip


class RelationTypePath(ToolInput):
    object_types: list[PathNode] = described(
        "按节点出现顺序排列的对象类；n 跳路径有 n+1 个。",
        "Object types in the order the path visits them; n hops need n+1.",
    )
    relation_types: list[PathEdge] = described(
        "按边出现顺序排列的关系类；第 i 条边连接第 i 与第 i+1 个节点。",
        "Relation types in edge order; edge i joins node i and node i+1.",
    )
    limit: int | None = _limit(
        "本路径最多返回多少条路径，默认 10000。",
        "At most this many paths for this template, default 10000.",
        default=10_000,
    )


class QueryInstanceSubgraphInput(_InstanceRead):
    relation_type_paths: list[RelationTypePath] = described(
        "关系路径集合。多条路径各自独立查询、独立返回子图，顺序与请求一致。",
        "Path templates. Each is queried on its own and returns its own subgraph, in request "
        "order.",
        min_length=1,
    )


def _path_length_required(schema: dict[str, Any]) -> None:
    schema["required"] = [*schema.get("required", []), "path_length"]


class ExploreSubgraphInput(_InstanceRead):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_path_length_required)

    source_object_type_id: str = described(
        "探索起点的对象类 ID。", "Object type id of the start objects.", min_length=1
    )
    direction: str = described(
        "forward 沿关系定义的出边，backward 沿入边，bidirectional 两个方向都走。",
        "forward follows relations as defined, backward against them, bidirectional both.",
        json_schema_extra={"enum": ["forward", "backward", "bidirectional"]},
    )
    path_length: int | None = described(
        "必填。最大跳数，取 1-3；缺失或越界返回 400。先从 1-2 起步。",
        "Required. Maximum hops, 1-3; missing or out of range is a 400. Start with 1-2.",
        default=None, json_schema_extra={"minimum": 1, "maximum": 3},
    )  # fmt: skip
    condition: dict[str, Any] | None = described(
        "只过滤起点。" + CONDITION[0], "Filters start objects only. " + CONDITION[1], default=None
    )
    concept_groups: list[str] | None = described(
        "可选。把探索范围限定在这些概念分组内。",
        "Optional. Explore only concepts in these groups.",
        default=None,
    )
    include_incomplete_path: bool = described(
        "是否返回走了至少一条边、但未走满 path_length 的残缺路径，默认 false。",
        "Also return paths of at least one edge that cannot reach path_length; default false.",
        default=False,
    )
    limit: int | None = _limit(
        "起点实例数量上限（不是路径条数），1-10000，默认 10。",
        "At most this many start objects (not paths), 1-10000, default 10.",
    )
    sort: list[dict[str, Any]] | None = _sort("起点的排序。", "Sort of the start objects.")
    offset: int | None = described(
        "起点的偏移翻页；与 search_after 互斥。",
        "Offset paging over start objects; exclusive with search_after.",
        default=None, json_schema_extra={"minimum": 0},
    )  # fmt: skip
    search_after: list[Any] | None = described(
        "起点的游标翻页：上一页返回的 search_after 原值；与 offset 互斥。",
        "Cursor paging over start objects: the previous page's search_after, unchanged; "
        "exclusive with offset.",
        default=None,
    )
