"""Inputs of the skill tools: list, read, read a file, run (seed 000)."""

from __future__ import annotations

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.inputs.aliases import alias_text, one_of
from gateway.domain.inputs.base import ToolInput, described


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
