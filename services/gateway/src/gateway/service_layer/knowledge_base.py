"""Knowledge-base tools, answered by the knowledge-base service (which checks the readers).

Results come back as the service returns them; refusals keep the Developer OpenAPI envelope.
A managed ``read_file`` records evidence naming the file, its ``sourceFileId``, the
``activeContentRevision`` and the sha256 of the content read.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.openapi_errors import OpenApiError, as_openapi_error
from gateway.domain.context import CallContext
from gateway.domain.inputs.knowledge_base import (
    ExpandGraphInput,
    GetFileInput,
    ListTreeInput,
    ReadFileInput,
    ReadRelatedInput,
    SearchFilesInput,
)
from gateway.service_layer.deps import Deps


def _params(args: BaseModel, *skip: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in args.model_dump(exclude_none=True).items():
        if key in ("kbId", *skip):
            continue
        out[key] = str(value).lower() if isinstance(value, bool) else value
    return out


async def _get(deps: Deps, ctx: CallContext, kb_id: str, path: str, params: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = await deps.services.knowledge_base.call(
        "GET", f"/internal/v1/knowledge-bases/{quote(kb_id, safe='')}{path}", params=params,
        account=ctx.principal.account, language=ctx.language, request_id=ctx.request_id,
    )
    return result


def _file(file_id: str) -> str:
    return f"/files/{quote(file_id, safe='')}"


async def search_files(deps: Deps, ctx: CallContext, args: SearchFilesInput) -> dict[str, Any]:
    return await _get(deps, ctx, args.kbId, "/files/search", _params(args))


async def read_file(deps: Deps, ctx: CallContext, args: ReadFileInput) -> dict[str, Any]:
    if args.fileId is not None:
        return await _get(deps, ctx, args.kbId, _file(args.fileId) + "/content", {})
    return await _get(deps, ctx, args.kbId, "/files/content", {"path": args.path})


async def list_tree(deps: Deps, ctx: CallContext, args: ListTreeInput) -> dict[str, Any]:
    return await _get(deps, ctx, args.kbId, "/tree", _params(args))


async def get_file(deps: Deps, ctx: CallContext, args: GetFileInput) -> dict[str, Any]:
    return await _get(deps, ctx, args.kbId, _file(args.fileId), {})


async def read_related(deps: Deps, ctx: CallContext, args: ReadRelatedInput) -> dict[str, Any]:
    return await _get(deps, ctx, args.kbId, _file(args.fileId) + "/related", _params(args, "fileId"))


async def expand_graph(deps: Deps, ctx: CallContext, args: ExpandGraphInput) -> dict[str, Any]:
    return await _get(deps, ctx, args.kbId, "/graph/expand", _params(args))


def openapi_refusal(error: ApiError, language: Any) -> OpenApiError:
    """Every refusal of a knowledge-base tool in the Developer OpenAPI envelope."""
    return as_openapi_error(error, language)


# -- retrieval evidence: references and hashes, never content ------------------------------
def _ref(kb_id: str, file_id: str) -> str:
    return f"knowledge_file:{kb_id}:{file_id}"


def search_evidence(args: SearchFilesInput, data: dict[str, Any]) -> dict[str, Any]:
    refs = [_ref(args.kbId, i["fileId"]) for i in data.get("items", [])]
    return {"evidence_type": "retrieval", "source_refs": refs, "attributes": {
        "tool": "search_files", "knowledge_base_id": args.kbId,
        "query_hash": hashlib.sha256(args.query.encode()).hexdigest(),
        "candidate_count": len(refs), "search_status": data.get("searchStatus"),
        "search_mode": data.get("searchMode"),
        "active_content_revision": data.get("activeContentRevision"),
        "has_more": data.get("nextCursor") is not None}}


def read_evidence(args: ReadFileInput, data: dict[str, Any]) -> dict[str, Any]:
    file = data.get("file", {})
    content = data.get("content", "")
    return {"evidence_type": "retrieval", "source_refs": [_ref(args.kbId, str(file.get("fileId")))],
            "attributes": {
                "tool": "read_file", "knowledge_base_id": args.kbId, "file_id": file.get("fileId"),
                "source_file_id": file.get("sourceFileId"), "path": file.get("path"),
                "active_content_revision": file.get("activeContentRevision"),
                "content_sha256": hashlib.sha256(str(content).encode()).hexdigest(),
                "navigation": file.get("navigation"),
            }}


def listing_evidence(tool: str) -> Any:
    def evidence(args: Any, data: dict[str, Any]) -> dict[str, Any]:
        items = data.get("items") or data.get("relationships") or []
        refs = [_ref(args.kbId, i["fileId"]) for i in items if i.get("fileId")]
        if "fileId" in data and not items:
            refs = [_ref(args.kbId, data["fileId"])]
        return {"evidence_type": "retrieval", "source_refs": refs, "attributes": {
            "tool": tool, "knowledge_base_id": args.kbId, "candidate_count": len(refs),
            "active_content_revision": data.get("activeContentRevision")}}

    return evidence
