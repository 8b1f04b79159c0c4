"""Messages that accompany search_capabilities results (not errors)."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language, register_messages, render_message

NO_BINDINGS = "search.no_bindings"
NO_MATCH = "search.no_match"
LIFECYCLE_ONLY = "search.lifecycle_only"
TRUNCATED = "search.truncated"
INCOMPLETE = "search.incomplete"

register_messages(
    {
        NO_BINDINGS: {
            "zh-CN": "知识网络 {kn_id} 尚未挂载任何能力；请先在该网络上绑定 Skill、工具箱工具或 MCP 工具。",
            "en-US": "Knowledge network {kn_id} has no capabilities mounted; bind skills, toolbox tools or MCP tools to it first.",
        },
        NO_MATCH: {
            "zh-CN": "在知识网络 {kn_id} 的已挂载能力中没有匹配项；可换个说法或去掉过滤条件。",
            "en-US": "No mounted capability of knowledge network {kn_id} matches; rephrase the query or drop filters.",
        },
        LIFECYCLE_ONLY: {
            "zh-CN": "匹配的能力全部因发布状态被排除（所属工具箱/MCP Server 未发布、工具已停用或状态无法确认）；这是发布状态问题，不是权限问题。",
            "en-US": "Every matching capability was excluded by its publish state (toolbox or MCP server not published, tool disabled, or state unconfirmed); this is about publish state, not permission.",
        },
        TRUNCATED: {
            "zh-CN": "共匹配 {total} 条，只返回前 {limit} 条；可提高 limit（上限 100）或收窄 query/types。",
            "en-US": "{total} matched; only the first {limit} are returned. Raise limit (max 100) or narrow query/types.",
        },
        INCOMPLETE: {
            "zh-CN": "结果不完整：部分命中因发布状态被排除，补召回后仍不足 {limit} 条，可能还有未返回的能力；可收窄 query 后重试。",
            "en-US": "The list is incomplete: some hits were excluded by publish state and one re-recall still found fewer than {limit}; more capabilities may exist. Narrow the query and retry.",
        },
    }
)


def message(code: str, language: Language, **params: object) -> str:
    return render_message(code, language, params)
