"""Skill tools of the gateway (seed 000); ``execute_skill`` only when
``EXECUTE_SKILL_ENABLED=true``."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.skills import (
    ExecuteSkillInput,
    ListSkillsInput,
    ReadSkillFileInput,
    SkillInput,
)
from gateway.service_layer import skills
from gateway.service_layer.registry import ToolDefinition
from gateway.settings import GatewaySettings

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "list_skills": {
        "zh-CN": "列出挂载在知识网络上的 Skill。",
        "en-US": "List the skills mounted on a knowledge network.",
    },
    "get_skill_content": {
        "zh-CN": "读取 Skill 的说明正文与文件清单（超过 40,000 字符截断并标注）。",
        "en-US": "Read a skill's main document and file list (over 40,000 characters is truncated and marked).",
    },
    "read_skill_file": {
        "zh-CN": "读取 Skill 目录内的一个文件。",
        "en-US": "Read one file inside a skill's folder.",
    },
    "execute_skill": {
        "zh-CN": "在沙箱中运行 Skill 的入口命令；非零退出码同样返回 200 与 exit_code。",
        "en-US": "Run a skill's entry command in the sandbox; a non-zero exit is still a 200 with exit_code.",
    },
}  # fmt: skip


def skill_tools(settings: GatewaySettings) -> list[ToolDefinition]:
    d = DESCRIPTIONS
    tools = [
        ToolDefinition("list_skills", ListSkillsInput, d["list_skills"], skills.list_skills),
        ToolDefinition("get_skill_content", SkillInput, d["get_skill_content"],
                       skills.get_skill_content),
        ToolDefinition("read_skill_file", ReadSkillFileInput, d["read_skill_file"],
                       skills.read_skill_file),
    ]
    if settings.execute_skill_enabled:
        tools.append(ToolDefinition("execute_skill", ExecuteSkillInput, d["execute_skill"],
                                    skills.execute_skill, kind="execution"))
    return tools
