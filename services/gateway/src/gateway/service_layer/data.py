"""The REST-only data tools, answered by ontology-query from the caller's resource grants.

``list_resources`` with ``kn_id`` reads the network's bindings, so it needs ``view_detail``
on that network; otherwise only the caller's own resource grants decide.
"""

from __future__ import annotations

from typing import Any

from gateway.domain.context import CallContext
from gateway.domain.inputs.data import DescribeResourceInput, ListResourcesInput, RunSqlInput
from gateway.service_layer.deps import Deps

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
