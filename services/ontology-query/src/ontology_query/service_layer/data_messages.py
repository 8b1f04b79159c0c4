"""Codes and messages of the REST-only data tools (run_sql, list_resources, describe_resource)."""

from __future__ import annotations

from bkn_common.contracts.i18n import register_messages

register_messages({
    "sql_syntax_error": {
        "zh-CN": "SQL 语法错误（第 {line} 行第 {column} 列）：{reason}",
        "en-US": "SQL syntax error at line {line}, column {column}: {reason}",
    },
    "sql_multiple_statements": {
        "zh-CN": "只允许一条语句，收到 {count} 条。",
        "en-US": "Only one statement is allowed; got {count}.",
    },
    "sql_not_select": {
        "zh-CN": "只允许只读的 SELECT，收到 {statement}。",
        "en-US": "Only a read-only SELECT is allowed; got {statement}.",
    },
    "sql_with_not_supported": {
        "zh-CN": "不支持 WITH / CTE，请改写为子查询或单条 SELECT。",
        "en-US": "WITH / CTEs are not supported; write one SELECT (subqueries work).",
    },
    "sql_set_operation_not_supported": {
        "zh-CN": "不支持 {operation}（UNION / INTERSECT / EXCEPT）。",
        "en-US": "{operation} (UNION / INTERSECT / EXCEPT) is not supported.",
    },
    "sql_construct_not_allowed": {
        "zh-CN": "不允许使用 {construct}。",
        "en-US": "{construct} is not allowed.",
    },
    "sql_function_not_allowed": {
        "zh-CN": "不允许调用函数 {function}（只支持常用的聚合与标量函数）。",
        "en-US": "Function {function} is not allowed (only common aggregate and scalar functions).",
    },
    "sql_table_not_placeholder": {
        "zh-CN": "表 {table} 不是资源占位符：表名必须写成 {{{{.<resource_id>}}}}。",
        "en-US": "Table {table} is not a resource placeholder: name tables as {{{{.<resource_id>}}}}.",
    },
    "sql_no_resource": {
        "zh-CN": "查询没有引用任何数据资源：用 {{{{.<resource_id>}}}} 引用表。",
        "en-US": "The query names no data resource: reference tables as {{{{.<resource_id>}}}}.",
    },
    "sql_placeholder_literal": {
        "zh-CN": "占位符 {placeholder} 是字面量：请替换成真实的资源 ID（list_resources 或 search_schema 的 data_source.id）。",
        "en-US": "Placeholder {placeholder} is a literal: put a real resource id in it (from list_resources, or data_source.id of search_schema).",
    },
    "sql_placeholder_invalid": {
        "zh-CN": "占位符写法不对：{placeholder}；应为 {{{{.<resource_id>}}}}。",
        "en-US": "Malformed placeholder: {placeholder}; write {{{{.<resource_id>}}}}.",
    },
    "sql_cross_catalog": {
        "zh-CN": "不支持跨数据目录查询：涉及的资源分属 {catalogs}。",
        "en-US": "A query may not span data catalogs; its resources belong to {catalogs}.",
    },
    "sql_resource_type_mismatch": {
        "zh-CN": "resource_type {given} 与资源的连接器类型 {actual} 不符。",
        "en-US": "resource_type {given} does not match the resources' connector type {actual}.",
    },
    "sql_query_timeout": {
        "zh-CN": "查询超过 {timeout} 秒被中断；请缩小范围或调大 query_timeout。",
        "en-US": "The query ran past {timeout} s and was interrupted; narrow it or raise query_timeout.",
    },
    "sql_execution_error": {
        "zh-CN": "查询执行失败：{reason}",
        "en-US": "The query failed: {reason}",
    },
    "data_resource_not_found": {
        "zh-CN": "数据资源 {resource_id} 不存在。",
        "en-US": "Data resource {resource_id} does not exist.",
    },
    "data_resource_forbidden": {
        "zh-CN": "当前账号没有数据资源 {resource_id} 的授权。",
        "en-US": "This account has no grant on data resource {resource_id}.",
    },
    "data_resource_unavailable": {
        "zh-CN": "数据资源 {resource_id} 当前状态为 {status}，不可查询。",
        "en-US": "Data resource {resource_id} is {status} and cannot be queried.",
    },
})
