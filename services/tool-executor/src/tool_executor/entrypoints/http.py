"""Internal HTTP API of tool-executor (called by the gateway; the caller comes in the signed
X-BKN-Account, checked by ``bkn_common.infra.mesh_http.MeshGuard`` before any route runs)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts import events as ev
from bkn_common.framework.http import json_response, request_language
from tool_executor.service_layer.catalog_view import list_mounted, resolve
from tool_executor.service_layer.execution import ExecuteCommand, ToolExecutor
from tool_executor.service_layer.skills import SkillService

Account = Annotated[str, Header(alias="X-BKN-Account")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExecuteBody(Strict):
    kn_id: str
    toolbox_id: str
    tool_id: str
    arguments: dict[str, Any]
    operation_id: str | None = None
    receipt_id: str | None = Field(None, pattern=r"^rcpt_[0-9a-f]{8,64}$")
    conversation_id: str | None = None
    interaction_id: str | None = None
    invocation_id: str | None = Field(None, min_length=1, max_length=256, pattern=r"^[!-~]+$")


class ResolveBody(Strict):
    kn_id: str
    refs: list[ev.CapabilityRef]


class MountedBody(Strict):
    kn_id: str
    types: list[str] | None = None
    owner_id: str | None = None
    limit: int = Field(20, ge=1, le=10_000)


class SkillBody(Strict):
    kn_id: str
    skill_id: str | None = None
    path: str | None = None
    args: list[str] = Field(default_factory=list)


def router(executor: ToolExecutor, skills: SkillService) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.post("/execute")
    async def execute(body: ExecuteBody, account: Account, request: Request) -> Response:
        outcome = await executor.execute(
            ExecuteCommand(caller=account, language=request_language(request), **body.model_dump())
        )
        return json_response(outcome.as_dict())  # the tool's body as parsed: plain JSON types

    @api.post("/capabilities/resolve")
    async def resolve_capabilities(body: ResolveBody) -> dict[str, Any]:
        return resolve(executor.state, body.kn_id, body.refs)

    @api.post("/capabilities/mounted")
    async def mounted_capabilities(body: MountedBody) -> dict[str, Any]:
        return list_mounted(executor.state, body.kn_id, types=body.types, owner_id=body.owner_id,
                            limit=body.limit)

    @api.post("/skills/list")
    async def list_skills(body: SkillBody, account: Account) -> dict[str, Any]:
        return skills.list_skills(body.kn_id, account)

    @api.post("/skills/content")
    async def skill_content(body: SkillBody, account: Account) -> dict[str, Any]:
        return skills.get_content(body.kn_id, body.skill_id or "", account)

    @api.post("/skills/file")
    async def skill_file(body: SkillBody, account: Account) -> dict[str, Any]:
        return skills.read_file(body.kn_id, body.skill_id or "", body.path or "", account)

    @api.post("/skills/execute")
    async def skill_execute(body: SkillBody, account: Account, request: Request) -> dict[str, Any]:
        return await skills.execute(body.kn_id, body.skill_id or "", body.args, account,
                                    request_language(request))

    return api
