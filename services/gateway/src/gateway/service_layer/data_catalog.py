"""The REST-only data tools of the gateway: definitions for the registry."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.data import DescribeResourceInput, ListResourcesInput, RunSqlInput
from gateway.service_layer import data
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "run_sql": {
        "zh-CN": "仅 REST：对调用者有授权的数据资源执行一条只读 SELECT（MySQL 方言，表名用 "
                 "{{.<resource_id>}}），返回 columns 与 entries；超过行数上限时 truncated 为 true。",
        "en-US": "REST only: run one read-only SELECT (MySQL dialect, tables as "
                 "{{.<resource_id>}}) over data resources the caller holds grants on; returns "
                 "columns and entries, with truncated true past the row cap.",
    },
    "list_resources": {
        "zh-CN": "仅 REST：列出调用者有授权的数据资源；给 kn_id 时列出该网络对象类绑定的资源。",
        "en-US": "REST only: list the data resources the caller holds grants on; with kn_id, "
                 "the resources that network's object types are bound to.",
    },
    "describe_resource": {
        "zh-CN": "仅 REST：一个数据资源的连接器类型与物理列（名称、类型、说明）。",
        "en-US": "REST only: a data resource's connector type and physical columns (name, "
                 "type, description).",
    },
}


def data_tools() -> list[ToolDefinition]:
    """Registered for REST only (``on_mcp=False``); the MCP catalogue also names them never."""
    d = DESCRIPTIONS
    return [
        ToolDefinition("run_sql", RunSqlInput, d["run_sql"], data.run_sql, on_mcp=False),
        ToolDefinition("list_resources", ListResourcesInput, d["list_resources"], data.list_resources,
                       on_mcp=False),
        ToolDefinition("describe_resource", DescribeResourceInput, d["describe_resource"],
                       data.describe_resource, on_mcp=False),
    ]
