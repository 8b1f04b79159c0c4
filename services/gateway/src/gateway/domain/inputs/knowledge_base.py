"""Inputs of the knowledge-base tools (seed 002): search_files, read_file, list_tree, get_file,
read_related, expand_graph. ``kbId`` names the base (the seed's tools serve one base each)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from gateway.domain.inputs.base import ToolInput, described


def _kb() -> Any:
    return described("知识库 ID（clctl kb apply --kb）。", "Knowledge base id (clctl kb apply --kb).",
                     min_length=1, max_length=128)


def _cursor() -> Any:
    return described("上一页返回的 nextCursor；被拒绝时不带游标重新开始。",
                     "nextCursor of the previous page; if it is refused, restart without a cursor.",
                     default=None)


class SearchFilesInput(ToolInput):
    kbId: str = _kb()
    query: str = described("用户完整、独立的问题（2-512 字符）。", "The user's full, self-contained question (2-512 characters).",
                           min_length=2, max_length=512)
    mode: Literal["hybrid", "file", "graph"] = described(
        "检索方式：hybrid（默认，融合）、file（仅词法）、graph（加强关系邻居）。",
        "Retrieval: hybrid (default, fused), file (lexical only), graph (more weight on related files).",
        default="hybrid")
    graphDepth: int = described("图邻居深度 0-2。", "Graph neighbour depth 0-2.", default=1, ge=0, le=2)
    graphFanout: int = described("每个节点的邻居数上限。", "Neighbours per node at most.", default=10, ge=1, le=50)
    rerank: bool = described("请求重排（本部署未配置重排模型，状态如实返回）。",
                             "Ask for reranking (no reranker is configured here; the status says so).", default=False)
    limit: int = described("每页条数 1-50，默认 10。", "Items per page 1-50, default 10.", default=10, ge=1, le=50)
    cursor: str | None = _cursor()


class ReadFileInput(ToolInput):
    kbId: str = _kb()
    fileId: str | None = described("文件 ID（与 path 二选一）。", "File id (exactly one of fileId or path).", default=None)
    path: str | None = described("文件路径（与 fileId 二选一）。", "File path (exactly one of fileId or path).", default=None)

    @model_validator(mode="after")
    def _exactly_one(self) -> ReadFileInput:
        if (self.fileId is None) == (self.path is None):
            raise ValueError("give exactly one of fileId or path")
        return self


class ListTreeInput(ToolInput):
    kbId: str = _kb()
    parentPath: str = described("父目录路径，空字符串为根目录。", "Parent directory path; empty is the root.", default="")
    cursor: str | None = _cursor()
    limit: int = described("每页条数 1-200，默认 50。", "Items per page 1-200, default 50.", default=50, ge=1, le=200)


class GetFileInput(ToolInput):
    kbId: str = _kb()
    fileId: str = described("文件 ID。", "File id.", min_length=1)


class ReadRelatedInput(ToolInput):
    kbId: str = _kb()
    fileId: str = described("来源文件 ID。", "Source file id.", min_length=1)
    cursor: str | None = _cursor()
    limit: int = described("每页条数 1-100，默认 20。", "Items per page 1-100, default 20.", default=20, ge=1, le=100)


class ExpandGraphInput(ToolInput):
    kbId: str = _kb()
    fileId: str = described("起点文件 ID。", "Start file id.", min_length=1)
    depth: int = described("深度 0-2，默认 1。", "Depth 0-2, default 1.", default=1, ge=0, le=2)
    fanout: int = described("每个节点的关系数上限，默认 10。", "Relations per node at most, default 10.", default=10, ge=1, le=50)
    limit: int = described("每页关系数 1-200，默认 50。", "Relationships per page 1-200, default 50.", default=50, ge=1, le=200)
    cursor: str | None = _cursor()
