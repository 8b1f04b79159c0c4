"""Inputs of the REST-only data tools (seed 003: never on MCP): run_sql, list_resources,
describe_resource. ``response_format`` (json / toon) is the REST query parameter or a body
field, as on every tool."""

from __future__ import annotations

from typing import Literal

from gateway.domain.inputs.base import ToolInput, described


class RunSqlInput(ToolInput):
    sql: str = described(
        "一条只读 SELECT（MySQL 方言：反引号是标识符，双引号是字符串）。表名用占位符 "
        "{{.<resource_id>}}（点可省略）；列名用物理列名（describe_resource，或 search_schema "
        "的 include_columns）。支持同一数据目录内 JOIN、WHERE、GROUP BY / HAVING、ORDER BY、"
        "LIMIT 与常用聚合；不支持 WITH、UNION / INTERSECT / EXCEPT、多语句与写入。",
        "One read-only SELECT (MySQL dialect: backquotes quote identifiers, double quotes are "
        "strings). Name tables by placeholders {{.<resource_id>}} (the dot is optional) and "
        "columns by their physical names (describe_resource, or search_schema with "
        "include_columns). Joins within one data catalog, WHERE, GROUP BY / HAVING, ORDER BY, "
        "LIMIT and common aggregates; no WITH, UNION / INTERSECT / EXCEPT, several statements "
        "or writes.",
        min_length=1, max_length=100_000,
    )
    resource_type: Literal["mysql", "mariadb", "postgresql", "sqlserver"] | None = described(
        "可选。连接器类型，须与所引用资源一致；一般不填。",
        "Optional. The connector type; must match the resources named; usually omitted.",
        default=None,
    )
    query_timeout: int = described(
        "查询超时（秒），1-3600，默认 60；到时中断查询。",
        "Query timeout in seconds, 1-3600, default 60; the query is interrupted then.",
        default=60, ge=1, le=3600,
    )


class ListResourcesInput(ToolInput):
    kn_id: str | None = described(
        "可选。只列该知识网络的对象类绑定的数据资源（一次全返，忽略 catalog_id / offset / "
        "limit），另给 unbound 与 missing。",
        "Optional. Only the data resources this network's object types are bound to (all at "
        "once; catalog_id / offset / limit are ignored), plus unbound and missing.",
        default=None, min_length=1,
    )
    catalog_id: str | None = described("可选。只看该数据目录。", "Optional. Only this data catalog.", default=None)
    type: Literal["table"] | None = described("可选。资源类别。", "Optional. Resource type.", default=None)
    offset: int = described("分页偏移，默认 0。", "Paging offset, default 0.", default=0, ge=0)
    limit: int = described("每页条数，1-1000，默认 20。", "Page size, 1-1000, default 20.",
                           default=20, ge=1, le=1000)


class DescribeResourceInput(ToolInput):
    resource_id: str = described("资源 ID（取自 list_resources）。", "Resource id (from list_resources).", min_length=1)
