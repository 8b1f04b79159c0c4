"""Inputs of the managed lifecycle tools (seed 003)."""

from __future__ import annotations

from typing import Literal

from gateway.domain.inputs.base import ToolInput, described


class StartInteractionInput(ToolInput):
    question: str = described("本轮用户提出的完整问题。", "The user's complete question for this turn.", min_length=1)
    agent_name: str = described("固定的 Agent 名称。", "The fixed name of the agent.", min_length=1)
    conversation_mode: Literal["new", "continue"] = described(
        "没有当前 Conversation 时用 new（不传 conversation_id）；延续时用 continue 并传入 start 返回的 id。",
        "new when there is no current conversation (no conversation_id); continue with the id an earlier start returned.",
    )
    conversation_id: str | None = described("continue 时必填：此前 start 返回的 conversation_id。", "Required with continue: the conversation_id an earlier start returned.", default=None)


class FinishInteractionInput(ToolInput):
    conversation_id: str = described("start 返回的 conversation_id。", "The conversation_id start returned.", min_length=1)
    interaction_id: str = described("start 返回的 interaction_id。", "The interaction_id start returned.", min_length=1)
    outcome: Literal["completed", "failed", "cancelled", "handed_off"] = described(
        "本轮结果：completed 需要 answer；其余需要 reason。",
        "The outcome: completed needs answer; the others need reason.",
    )
    answer: str | None = described("completed 时的最终回答。", "The final answer when completed.", default=None)
    reason: str | None = described("failed / cancelled / handed_off 的原因。", "Why it failed, was cancelled or handed off.", default=None)
