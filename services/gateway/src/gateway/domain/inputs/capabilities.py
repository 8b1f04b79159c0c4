"""Inputs of search_capabilities, execute_tool and the skill tools (seed 000)."""

from __future__ import annotations

from typing import Any, Literal

from bkn_common.errors import ApiError, ErrorCode
from gateway.domain.inputs.aliases import alias_text, one_of
from gateway.domain.inputs.base import ToolInput, described


class SearchCapabilitiesInput(ToolInput):
    kn_id: str = described("知识网络 ID；候选集取自该网络的能力绑定。", "Knowledge network id; candidates are its capability bindings.", min_length=1)
    query: str | None = described("可选。在已挂载能力内按名称与说明排序；留空按绑定顺序列出。", "Optional. Ranks mounted capabilities by name and description; empty lists them in binding order.", default=None)
    types: list[Literal["skill", "function", "mcp_tool"]] | None = described("可选。按能力类型收窄（只在挂载集内）。", "Optional. Narrow by capability type (within the mounted set).", default=None)
    metadata_types: list[Literal["openapi", "function"]] | None = described("可选。函数工具再分 openapi 与 function。", "Optional. Split function tools into openapi and function.", default=None)
    owner_id: str | None = described("可选。只看某个工具箱或 MCP Server；传了就不返回 Skill。", "Optional. Only one toolbox or MCP server; skills are then excluded.", default=None)
    limit: int = described("最多返回多少条，1-100，默认 20。", "At most this many results, 1-100, default 20.", default=20, ge=1, le=100)


class ExecuteToolInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    toolbox_id: str = described("工具箱或 MCP Server ID，取自 search_capabilities 的 owner_id。", "Toolbox or MCP server id: owner_id from search_capabilities.", min_length=1)
    tool_id: str = described("工具 ID，取自 search_capabilities 的 capability_id。", "Tool id: capability_id from search_capabilities.", min_length=1)
    arguments: dict[str, Any] = described("工具的业务入参，按 input_schema 填写；传输字段不生效且会被记录。", "The tool's business inputs per its input_schema; transport fields take no effect and are recorded.")


class ListSkillsInput(ToolInput):
    kn_id: str = described("知识网络 ID（只列挂载在它上面的 Skill）。", "Knowledge network id (only the skills mounted on it are listed).", min_length=1)
    name: str | None = described("可选。按名称或 ID 子串过滤（不区分大小写）。", "Optional. Case-insensitive substring of the name or id.", default=None)
    category: str | None = described("可选。只看该分类的 Skill。", "Optional. Only skills of this category.", default=None)
    page: int = described("页码，从 1 开始，默认 1。", "Page number from 1, default 1.", default=1, ge=1)
    page_size: int = described("每页条数，1-100，默认 20。", "Page size, 1-100, default 20.", default=20, ge=1, le=100)


class SkillInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    skill_id: str = described("Skill ID，取自 search_capabilities 或 list_skills。", "Skill id from search_capabilities or list_skills.", min_length=1)


class ReadSkillFileInput(SkillInput):
    rel_path: str | None = described("Skill 目录内的相对路径（get_skill_content 的 files 之一；规范名）。", "A relative path inside the skill folder (one of get_skill_content's files; canonical).", default=None, min_length=1)
    path: str | None = described(*alias_text("rel_path"), default=None, min_length=1)

    def file_path(self) -> str:
        value = one_of("rel_path", self.rel_path, "path", self.path)
        if not value:
            reason = "rel_path: required (a relative path inside the skill folder)"
            raise ApiError(ErrorCode.INVALID_REQUEST, 400, params={"reason": reason},
                           details=[{"field": "rel_path", "problem": "required"}])
        return str(value)


class ExecuteSkillInput(SkillInput):
    args: list[str] = described("传给入口命令的参数。", "Arguments passed to the entry command.", default_factory=list)
