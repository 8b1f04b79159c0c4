"""Skill tools: list, read, read a file and (when enabled) run, all through tool-executor."""

from __future__ import annotations

from typing import Any

from gateway.domain.context import CallContext
from gateway.domain.inputs.capabilities import (
    ExecuteSkillInput,
    ListSkillsInput,
    ReadSkillFileInput,
    SkillInput,
)
from gateway.service_layer.deps import Deps


async def _skills(deps: Deps, ctx: CallContext, path: str, body: dict[str, Any]) -> dict[str, Any]:
    await deps.access.require(ctx, body["kn_id"], "view_detail")
    result: dict[str, Any] = await deps.services.tool_executor.call(
        "POST", f"/internal/v1/skills/{path}", json=body, account=ctx.principal.account,
        language=ctx.language, request_id=ctx.request_id,
    )
    return result


async def list_skills(deps: Deps, ctx: CallContext, args: ListSkillsInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "list", args.model_dump())


async def get_skill_content(deps: Deps, ctx: CallContext, args: SkillInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "content", args.model_dump())


async def read_skill_file(deps: Deps, ctx: CallContext, args: ReadSkillFileInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "file", args.model_dump())


async def execute_skill(deps: Deps, ctx: CallContext, args: ExecuteSkillInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "execute", args.model_dump())
