"""The REST-only data tools, answered by ontology-query from the caller's resource grants.

``list_resources`` with ``kn_id`` reads the network's bindings, so it needs ``view_detail``
on that network; otherwise only the caller's own resource grants decide.
"""

from __future__ import annotations

from typing import Any

from bkn_common.i18n import Language
from gateway.domain.context import CallContext
from gateway.domain.inputs.data import DescribeResourceInput, ListResourcesInput, RunSqlInput
from gateway.service_layer.deps import Deps
from gateway.service_layer.registry import ToolDefinition

TIMEOUT_MARGIN_SECONDS = 10.0


async def _ask(deps: Deps, ctx: CallContext, path: str, body: dict[str, Any],
               timeout: float | None = None) -> dict[str, Any]:
    extra: dict[str, Any] = {"timeout": timeout} if timeout is not None else {}
    result: dict[str, Any] = await deps.services.ontology_query.call(
        "POST", f"/internal/v1/data/{path}", json=body, account=ctx.principal.account,
        language=ctx.language, request_id=ctx.request_id, **extra,
    )
    return result


async def run_sql(deps: Deps, ctx: CallContext, args: RunSqlInput) -> dict[str, Any]:
    return await _ask(deps, ctx, "sql", args.model_dump(exclude_none=True),
                      timeout=args.query_timeout + TIMEOUT_MARGIN_SECONDS)


async def list_resources(deps: Deps, ctx: CallContext, args: ListResourcesInput) -> dict[str, Any]:
    if args.kn_id is not None:
        await deps.access.require(ctx, args.kn_id, "view_detail")
    return await _ask(deps, ctx, "resources/list", args.model_dump(exclude_none=True))


async def describe_resource(
    deps: Deps, ctx: CallContext, args: DescribeResourceInput
) -> dict[str, Any]:
    return await _ask(deps, ctx, "resources/describe", args.model_dump())


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
        ToolDefinition("run_sql", RunSqlInput, d["run_sql"], run_sql, on_mcp=False),
        ToolDefinition("list_resources", ListResourcesInput, d["list_resources"], list_resources,
                       on_mcp=False),
        ToolDefinition("describe_resource", DescribeResourceInput, d["describe_resource"],
                       describe_resource, on_mcp=False),
    ]
