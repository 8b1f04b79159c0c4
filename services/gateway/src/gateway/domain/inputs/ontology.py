"""Inputs of the ontology tools: networks, schema, instances and subgraphs.

Values whose refusals have their own codes (limit, offset, path_length, direction, sort,
condition) are checked by ontology-query, not here, so each 400 carries the code the API
documents; their bounds and enums still appear in the published JSON schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from gateway.domain.inputs.aliases import one_of
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
    sort: Literal["update_time", "name", "id"] | None = described(
        "可选。排序字段：update_time（最近一次更新）、name 或 id；不传按 id 升序。",
        "Optional. Sort field: update_time (last update), name or id; omitted sorts by id "
        "ascending.",
        default=None,
    )
    direction: Literal["asc", "desc"] | None = described(
        "可选。排序方向，给了 sort 时默认 desc。", "Optional. Sort direction, desc by default "
        "when sort is given.", default=None,
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
        "missing。不传返回全部（可用 offset / limit 分页）。",
        "Object type ids; an entry that is no id but equals a type's name matches by name. "
        "Unmatched entries are listed in missing. Omit for all (paged by offset / limit).",
        default=None,
    )
    offset: int | None = described(
        "不传 ids 时的起始位置；续页用响应的 next_offset。",
        "Start of the listing without ids; continue with the answer's next_offset.",
        default=None, ge=0,
    )
    limit: int | None = described(
        "不传 ids 时的每页条数，1-200。", "Page size of the listing without ids, 1-200.",
        default=None, ge=1, le=200,
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


class SearchScope(ToolInput):
    concept_groups: list[str] | None = described(
        "可选。只在这些概念分组内检索。", "Optional. Only concepts in these concept groups.",
        default=None,
    )
    include_object_types: bool | None = described("是否返回对象类，默认 true。", "Return object types (default true).", default=None)
    include_relation_types: bool | None = described("是否返回关系类，默认 true。", "Return relation types (default true).", default=None)
    include_action_types: bool | None = described("是否返回行动类，默认 true。", "Return action types (default true).", default=None)
    include_metric_types: bool | None = described("是否返回指标，默认 true。", "Return metrics (default true).", default=None)


class SearchSchemaInput(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    query: str = described(
        "自然语言或关键词，中英文均可。",
        "Natural language or keywords, Chinese or English.",
        min_length=1,
    )
    search_scope: SearchScope | None = described(
        "检索范围（规范写法）：concept_groups 与四类概念的 include_* 开关；不传四类全开。"
        "四类全关返回 400。",
        "Search scope (canonical): concept_groups and the include_* switch of each of the four "
        "kinds; omitted, all four are on. All four off is a 400.",
        default=None,
    )
    search_object_types: bool = described(
        "旧写法，等同 search_scope.include_object_types。", "Earlier form of "
        "search_scope.include_object_types.", default=True
    )
    search_relation_types: bool = described(
        "旧写法，等同 search_scope.include_relation_types。", "Earlier form of "
        "search_scope.include_relation_types.", default=True
    )
    search_action_types: bool = described(
        "旧写法，等同 search_scope.include_action_types。", "Earlier form of "
        "search_scope.include_action_types.", default=True
    )
    search_metrics: bool = described(
        "旧写法，等同 search_scope.include_metric_types。", "Earlier form of "
        "search_scope.include_metric_types.", default=True,
    )
    concept_groups: list[str] | None = described(
        "旧写法，等同 search_scope.concept_groups。", "Earlier form of "
        "search_scope.concept_groups.", default=None,
    )
    max_concepts: int = described(
        "最多返回多少个概念（各类合计），1-100，默认 10。",
        "At most this many concepts over all kinds, 1-100, default 10.",
        default=10, ge=1, le=100,
    )  # fmt: skip
    schema_brief: bool = described(
        "默认 true：精简 Schema，属性只给 name / type，省去说明、显示名、主键与显示键；"
        "需要完整定义时传 false。",
        "Default true: a brief schema, properties with name / type only, no descriptions, "
        "display names, primary keys or display key; false for the full definitions.",
        default=True,
    )
    enable_rerank: bool = described(
        "默认 true：关系类按是否连接本次命中的对象类重排（两端都命中在前）；false 只按文本得分。",
        "Default true: relation types are reranked by whether they connect object types this "
        "search matched (both ends matched first); false keeps the text score order.",
        default=True,
    )
    include_columns: bool = described(
        "默认 false：为 true 时对象类的每个属性带 column（其数据资源中的物理列名）与 "
        "data_source（资源 ID），供 REST run_sql 使用。",
        "Default false: when true each object type property carries column (its physical "
        "column in the data resource) and the type carries data_source (the resource id), "
        "for the REST run_sql.",
        default=False,
    )

    def scope(self) -> dict[str, Any]:
        """The effective kinds and groups: search_scope where it speaks, else the flat flags."""
        given = self.search_scope.model_dump(exclude_none=True) if self.search_scope else {}
        return {
            "search_object_types": given.get("include_object_types", self.search_object_types),
            "search_relation_types": given.get("include_relation_types",
                                               self.search_relation_types),
            "search_action_types": given.get("include_action_types", self.search_action_types),
            "search_metrics": given.get("include_metric_types", self.search_metrics),
            "concept_groups": given.get("concept_groups", self.concept_groups),
        }


class _InstanceRead(ToolInput):
    kn_id: str = described(*KN_ID, min_length=1)
    include_logic_params: bool = described(
        "是否返回逻辑属性的计算参数（logic_params）。默认 false，结果不含逻辑属性。",
        "Return the computation parameters of logic properties (logic_params). Default "
        "false: no logic properties.",
        default=False,
    )


class InstanceFilter(ToolInput):
    field: str = described("对象类属性名。", "Property name.", min_length=1)
    op: Literal["==", "!=", ">", ">=", "<", "<=", "in", "not_in", "like", "not_like", "exist",
                "not_exist", "match"] = described("比较算子。", "Comparison operator.")
    value: Any = described("值；in / not_in 用数组。", "Value; an array for in / not_in.",
                           default=None)


class QueryObjectInstanceInput(_InstanceRead):
    ot_id: str = described("对象类 ID。", "Object type id.", min_length=1)
    condition: dict[str, Any] | None = described(*CONDITION, default=None)
    filters: list[InstanceFilter] | None = described(
        "扁平过滤简写：各项按 and 组合，等价于 and 的 condition；与 condition 同传时 "
        "condition 优先。",
        "Flat filter shorthand: the items are combined with and, like an and condition; when "
        "condition is also given, condition wins.",
        default=None,
    )
    search_after: list[Any] | None = described(
        "游标翻页（规范写法）：上一页返回的 search_after 原值；与 cursor 等价。",
        "Cursor paging (canonical): the previous page's search_after, unchanged; the same as "
        "cursor.",
        default=None,
    )
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
        "旧写法：上一页返回的 next_cursor 原值（不透明），等同 search_after。",
        "Earlier form: the next_cursor of the previous page, unchanged (opaque); the same as "
        "search_after.",
        default=None,
    )

    def effective_condition(self) -> dict[str, Any] | None:
        if self.condition is not None or not self.filters:
            return self.condition
        leaves = [{"field": f.field, "operation": f.op} if f.op in ("exist", "not_exist")
                  else {"field": f.field, "operation": f.op, "value": f.value, "value_from": "const"}
                  for f in self.filters]
        return leaves[0] if len(leaves) == 1 else {"operation": "and", "sub_conditions": leaves}

    def effective_cursor(self) -> str | None:
        given = [str(v) for v in self.search_after or []]
        cursor: str | None = one_of("search_after", given[0] if given else None,
                                    "cursor", self.cursor)
        return cursor
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
