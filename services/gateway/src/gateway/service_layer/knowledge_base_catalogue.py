"""Knowledge-base tools of the catalogue (seed 002)."""

from __future__ import annotations

from gateway.domain.inputs.knowledge_base import (
    ExpandGraphInput,
    GetFileInput,
    ListTreeInput,
    ReadFileInput,
    ReadRelatedInput,
    SearchFilesInput,
)
from gateway.service_layer import knowledge_base as kb
from gateway.service_layer.registry import ToolDefinition


def knowledge_base_tools() -> list[ToolDefinition]:
    def tool(name: str, model: type, zh: str, en: str, handler: object, evidence: object) -> ToolDefinition:
        return ToolDefinition(name, model, {"zh-CN": zh, "en-US": en}, handler,  # type: ignore[arg-type]
                              evidence=evidence, refusal=kb.openapi_refusal)  # type: ignore[arg-type]

    return [
        tool("search_files", SearchFilesInput,
             "在知识库中查找当前可读的来源文件候选（默认 hybrid 融合检索）。只返回候选与读取动作，不是回答证据：回答前用 read_file 读取选中的 Markdown。searchStatus=no_candidates 是成功的空结果。",
             "Find currently readable source-file candidates in a knowledge base (hybrid retrieval by default). Returns candidates and read actions, not answer evidence: read the chosen Markdown with read_file before answering. searchStatus=no_candidates is a successful empty result.",
             kb.search_files, kb.search_evidence),
        tool("read_file", ReadFileInput,
             "读取一个当前文件，返回 { file, content }；fileId 与 path 二选一。pages/** 可作为回答证据，index.md、目录索引、_index/** 与 _graph/** 只用于导航。",
             "Read one current file as { file, content }; exactly one of fileId or path. pages/** are answer evidence; index.md, directory indexes, _index/** and _graph/** are navigation only.",
             kb.read_file, kb.read_evidence),
        tool("list_tree", ListTreeInput,
             "列出某目录下的当前文件与子目录（发现兜底）；nextCursor 只能与相同的 parentPath、limit 和修订号一起使用。",
             "List the current files and folders under a directory (the discovery fallback); nextCursor only works with the same parentPath, limit and revision.",
             kb.list_tree, kb.listing_evidence("list_tree")),
        tool("get_file", GetFileInput,
             "读取一个文件的当前元数据与读取动作（不含正文），用于决定是否读取全文。",
             "Read one file's current metadata and read actions (no content), to decide whether to read it.",
             kb.get_file, kb.listing_evidence("get_file")),
        tool("read_related", ReadRelatedInput,
             "读取一个来源文件的有界相关文件（链接、frontmatter 关系、共享标签）。",
             "Read a source file's bounded related files (links, frontmatter relations, shared tags).",
             kb.read_related, kb.listing_evidence("read_related")),
        tool("expand_graph", ExpandGraphInput,
             "从一个可读文件出发探索关系（depth 0-2），返回关系路径与文件读取动作；返回的 Markdown 需先读取正文再作为证据。",
             "Explore relations from one readable file (depth 0-2); returns relation paths and file read actions. Read a returned Markdown file before using it as evidence.",
             kb.expand_graph, kb.listing_evidence("expand_graph")),
    ]
