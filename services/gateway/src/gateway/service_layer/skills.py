"""Skill tools: list, read, read a file and (when enabled) run, all through tool-executor."""

from __future__ import annotations

from typing import Any

from gateway.domain.context import CallContext
from gateway.domain.inputs.skills import (
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
    """The mounted skills, filtered by ``name`` (substring of name or id) and ``category``,
    one ``page`` of ``page_size``; ``total`` counts every match."""
    mounted = await _skills(deps, ctx, "list", {"kn_id": args.kn_id})
    needle = (args.name or "").casefold()
    matched = [
        s for s in mounted.get("skills", [])
        if (not needle or needle in str(s.get("name", "")).casefold()
            or needle in str(s.get("skill_id", "")).casefold())
        and (args.category is None or s.get("category") == args.category)
    ]
    start = (args.page - 1) * args.page_size
    return {"skills": matched[start: start + args.page_size], "total": len(matched),
            "page": args.page, "page_size": args.page_size}


async def get_skill_content(deps: Deps, ctx: CallContext, args: SkillInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "content", args.model_dump())


async def read_skill_file(deps: Deps, ctx: CallContext, args: ReadSkillFileInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "file", {"kn_id": args.kn_id, "skill_id": args.skill_id,
                                             "path": args.file_path()})


async def execute_skill(deps: Deps, ctx: CallContext, args: ExecuteSkillInput) -> dict[str, Any]:
    return await _skills(deps, ctx, "execute", args.model_dump())
