"""Knowledge-base tools of the gateway (seed 002): definitions for the registry.

Their refusals are in the knowledge-base API's envelope (``kb.openapi_refusal``).
"""

from __future__ import annotations

from pydantic import BaseModel

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.knowledge_base import (
    ExpandGraphInput,
    GetFileInput,
    ListTreeInput,
    ReadFileInput,
    ReadRelatedInput,
    SearchFilesInput,
)
from gateway.service_layer import knowledge_base as kb
from gateway.service_layer.registry import Evidence, Handler, ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "search_files": {
        "zh-CN": "在知识库中查找当前可读的来源文件候选（默认 hybrid 融合检索）。只返回候选与读取动作，不是回答证据：回答前用 read_file 读取选中的 Markdown。searchStatus=no_candidates 是成功的空结果。",
        "en-US": "Find currently readable source-file candidates in a knowledge base (hybrid retrieval by default). Returns candidates and read actions, not answer evidence: read the chosen Markdown with read_file before answering. searchStatus=no_candidates is a successful empty result.",
    },
    "read_file": {
        "zh-CN": "读取一个当前文件，返回 { file, content }；fileId 与 path 二选一。pages/** 可作为回答证据，index.md、目录索引、_index/** 与 _graph/** 只用于导航。",
        "en-US": "Read one current file as { file, content }; exactly one of fileId or path. pages/** are answer evidence; index.md, directory indexes, _index/** and _graph/** are navigation only.",
    },
    "list_tree": {
        "zh-CN": "列出某目录下的当前文件与子目录（发现兜底）；nextCursor 只能与相同的 parentPath、limit 和修订号一起使用。",
        "en-US": "List the current files and folders under a directory (the discovery fallback); nextCursor only works with the same parentPath, limit and revision.",
    },
    "get_file": {
        "zh-CN": "读取一个文件的当前元数据与读取动作（不含正文），用于决定是否读取全文。",
        "en-US": "Read one file's current metadata and read actions (no content), to decide whether to read it.",
    },
    "read_related": {
        "zh-CN": "读取一个来源文件的有界相关文件（链接、frontmatter 关系、共享标签）。",
        "en-US": "Read a source file's bounded related files (links, frontmatter relations, shared tags).",
    },
    "expand_graph": {
        "zh-CN": "从一个可读文件出发探索关系（depth 0-2），返回关系路径与文件读取动作；返回的 Markdown 需先读取正文再作为证据。",
        "en-US": "Explore relations from one readable file (depth 0-2); returns relation paths and file read actions. Read a returned Markdown file before using it as evidence.",
    },
}  # fmt: skip


def knowledge_base_tools() -> list[ToolDefinition]:
    d = DESCRIPTIONS

    def tool(name: str, model: type[BaseModel], handler: Handler, evidence: Evidence) -> ToolDefinition:
        return ToolDefinition(name, model, d[name], handler, evidence=evidence,
                              refusal=kb.openapi_refusal)

    return [
        tool("search_files", SearchFilesInput, kb.search_files, kb.search_evidence),
        tool("read_file", ReadFileInput, kb.read_file, kb.read_evidence),
        tool("list_tree", ListTreeInput, kb.list_tree, kb.listing_evidence("list_tree")),
        tool("get_file", GetFileInput, kb.get_file, kb.listing_evidence("get_file")),
        tool("read_related", ReadRelatedInput, kb.read_related,
             kb.listing_evidence("read_related")),
        tool("expand_graph", ExpandGraphInput, kb.expand_graph,
             kb.listing_evidence("expand_graph")),
    ]
