"""Internal HTTP API of capability-index (called by the gateway only)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from bkn_common.contracts import events as ev
from bkn_common.framework.http import json_response
from capability_index.service_layer.projection import CapabilityIndex


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kn_id: str
    query: str | None = None
    types: list[Literal["skill", "function", "mcp_tool"]] | None = None
    metadata_types: list[Literal["openapi", "function"]] | None = None
    owner_id: str | None = None
    limit: int = Field(20, ge=1, le=10_000)
    resolve: bool = False  # also gate and describe the hits (see CapabilityIndex.resolve)


class DescribeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    refs: list[ev.CapabilityRef]


def router(index: CapabilityIndex) -> APIRouter:
    api = APIRouter(prefix="/internal/v1")

    @api.post("/search")
    async def search(body: SearchBody) -> Response:
        result = index.search(
            body.kn_id,
            query=body.query,
            types=body.types,
            metadata_types=body.metadata_types,
            owner_id=body.owner_id,
            limit=body.limit,
        )
        answer: dict[str, object] = {
            "hits": [h.as_dict() for h in result.hits],
            "total_matched": result.total_matched,
            "mounted": result.mounted,
        }
        if body.resolve:
            answer["resolved"] = index.resolve(body.kn_id, [h.ref for h in result.hits])
        return json_response(answer)

    @api.post("/describe")
    async def describe(body: DescribeBody) -> dict[str, object]:
        return {"hits": [h.as_dict() for h in index.describe(body.refs)]}

    @api.get("/stats")
    async def stats() -> dict[str, object]:
        return {
            "indexed": len(index.lexical),
            "networks": len(index.catalog.bindings),
            "catalog_version": index.catalog.version,
        }

    return api
