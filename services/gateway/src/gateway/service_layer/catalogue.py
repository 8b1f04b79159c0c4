"""The gateway's tool catalogue: every public tool, its input model, handler and kind."""

from __future__ import annotations

from typing import Any

from gateway.domain.inputs.capabilities import (
    ExecuteSkillInput,
    ExecuteToolInput,
    ListSkillsInput,
    ReadSkillFileInput,
    SearchCapabilitiesInput,
    SkillInput,
)
from gateway.domain.inputs.lifecycle import (
    FINISH_OUTCOMES,
    FinishInteractionInput,
    StartInteractionInput,
)
from gateway.service_layer import capabilities, lifecycle, skills
from gateway.service_layer.actions_catalogue import action_tools
from gateway.service_layer.data_tools import data_tools
from gateway.service_layer.knowledge_base_catalogue import knowledge_base_tools
from gateway.service_layer.lifecycle import EXECUTION_STATUS
from gateway.service_layer.ontology_catalogue import ontology_tools
from gateway.service_layer.registry import ToolDefinition, ToolRegistry
from gateway.settings import GatewaySettings


def capability_tools(settings: GatewaySettings) -> list[ToolDefinition]:
    tools = [
        ToolDefinition(
            "search_capabilities", SearchCapabilitiesInput,
            {"zh-CN": "在一个排序空间里检索知识网络已挂载、当前可用的能力（Skill、函数工具、API 工具、MCP 工具混排）。tool 类命中带裁剪后的 input_schema，用 execute_tool 调用；skill 用 get_skill_content 读取。",
             "en-US": "Search, in one ranking, the capabilities mounted on a knowledge network and currently usable (skills, function tools, API tools, MCP tools). Tool hits carry a trimmed input_schema for execute_tool; read skills with get_skill_content."},
            capabilities.search_capabilities, evidence=capabilities.search_evidence,
        ),
        ToolDefinition(
            "execute_tool", ExecuteToolInput,
            {"zh-CN": "以知识网络托管代理执行已挂载的工具，返回工具原始响应。有不可回滚的副作用：调用前先读 search_capabilities 返回的 description 与 use_rule。工具自身报错同样返回 200。",
             "en-US": "Run a mounted tool through the knowledge network's hosted proxy and return the tool's raw response. Side effects cannot be undone: read description and use_rule from search_capabilities first. The tool's own errors also return 200."},
            capabilities.execute_tool, kind="execution", evidence=capabilities.execution_evidence,
            rest_body=lambda outcome: outcome.get("body"),
        ),
        ToolDefinition(
            "list_skills", ListSkillsInput,
            {"zh-CN": "列出挂载在知识网络上的 Skill。", "en-US": "List the skills mounted on a knowledge network."},
            skills.list_skills,
        ),
        ToolDefinition(
            "get_skill_content", SkillInput,
            {"zh-CN": "读取 Skill 的说明正文与文件清单（超过 40,000 字符截断并标注）。",
             "en-US": "Read a skill's main document and file list (over 40,000 characters is truncated and marked)."},
            skills.get_skill_content,
        ),
        ToolDefinition(
            "read_skill_file", ReadSkillFileInput,
            {"zh-CN": "读取 Skill 目录内的一个文件。", "en-US": "Read one file inside a skill's folder."},
            skills.read_skill_file,
        ),
    ]
    if settings.execute_skill_enabled:
        tools.append(ToolDefinition(
            "execute_skill", ExecuteSkillInput,
            {"zh-CN": "在沙箱中运行 Skill 的入口命令；非零退出码同样返回 200 与 exit_code。",
             "en-US": "Run a skill's entry command in the sandbox; a non-zero exit is still a 200 with exit_code."},
            skills.execute_skill, kind="execution",
        ))
    return tools


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


_STR: dict[str, Any] = {"type": "string"}
_BOOL: dict[str, Any] = {"type": "boolean"}
START_OUTPUT = _closed({
    "conversation_id": _STR, "interaction_id": _STR,
    "execution_status": {"type": "string", "enum": ["active"]},
    "capture_enabled": _BOOL, "new_conversation": _BOOL, "replayed": _BOOL,
}, ["conversation_id", "interaction_id", "execution_status"])
FINISH_OUTPUT = _closed({
    "conversation_id": _STR, "interaction_id": _STR,
    "outcome": {"type": "string", "enum": [*FINISH_OUTCOMES, "abandoned"]},
    "execution_status": {"type": "string", "enum": sorted(set(EXECUTION_STATUS.values()))},
    "evidence_status": {"type": "string",
                        "enum": ["not_applicable", "assembling", "complete", "partial", "failed"]},
    "operations": {"type": "integer", "minimum": 0},
    "operations_status": {"type": "string", "enum": ["none", "succeeded", "failed", "partial"]},
}, ["conversation_id", "interaction_id", "execution_status", "evidence_status"])


def lifecycle_tools() -> list[ToolDefinition]:
    return [
        ToolDefinition(
            "bkn_start_interaction", StartInteractionInput,
            {"zh-CN": "开始一轮受管 Interaction：提交完整问题、固定 agent_name 与 conversation_mode，返回服务端签发的 conversation_id 与 interaction_id，供业务工具的 bkn_context 使用。",
             "en-US": "Start a managed interaction: send the full question, the fixed agent_name and conversation_mode; returns the server-issued conversation_id and interaction_id to pass in bkn_context on business tools."},
            lifecycle.start_interaction, kind="lifecycle", output_schema=START_OUTPUT,
        ),
        ToolDefinition(
            "bkn_finish_interaction", FinishInteractionInput,
            {"zh-CN": "结束当前 Interaction 并提交结果（不关闭 Conversation，可跨轮、跨日继续）。",
             "en-US": "Finish the current interaction with its outcome, named by interaction_id (the conversation stays open across turns and days)."},
            lifecycle.finish_interaction, kind="lifecycle", output_schema=FINISH_OUTPUT,
        ),
    ]


def build_registry(settings: GatewaySettings) -> ToolRegistry:
    return ToolRegistry(
        [*lifecycle_tools(), *ontology_tools(), *action_tools(), *capability_tools(settings),
         *knowledge_base_tools(),
         *data_tools()]
    )
