"""Lifecycle tools of the gateway (seed 003): definitions for the registry."""

from __future__ import annotations

from typing import Any

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.lifecycle import (
    FINISH_OUTCOMES,
    FinishInteractionInput,
    StartInteractionInput,
)
from gateway.service_layer import lifecycle
from gateway.service_layer.lifecycle import EXECUTION_STATUS
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "bkn_start_interaction": {
        "zh-CN": "开始一轮受管 Interaction：提交完整问题、固定 agent_name 与 conversation_mode，返回服务端签发的 conversation_id 与 interaction_id，供业务工具的 bkn_context 使用。",
        "en-US": "Start a managed interaction: send the full question, the fixed agent_name and conversation_mode; returns the server-issued conversation_id and interaction_id to pass in bkn_context on business tools.",
    },
    "bkn_finish_interaction": {
        "zh-CN": "结束当前 Interaction 并提交结果（不关闭 Conversation，可跨轮、跨日继续）。",
        "en-US": "Finish the current interaction with its outcome, named by interaction_id (the conversation stays open across turns and days).",
    },
}  # fmt: skip


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
    d = DESCRIPTIONS
    return [
        ToolDefinition("bkn_start_interaction", StartInteractionInput, d["bkn_start_interaction"],
                       lifecycle.start_interaction, kind="lifecycle", output_schema=START_OUTPUT),
        ToolDefinition("bkn_finish_interaction", FinishInteractionInput,
                       d["bkn_finish_interaction"], lifecycle.finish_interaction,
                       kind="lifecycle", output_schema=FINISH_OUTPUT),
    ]
