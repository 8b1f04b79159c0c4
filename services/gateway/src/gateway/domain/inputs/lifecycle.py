"""Inputs of the managed lifecycle tools (seed 003).

Finish is named by ``interaction_id`` alone, as upstream clients send it; ``conversation_id``
is still accepted (the earlier form) and, when given, must be the interaction's conversation.
``partial_reasons`` are the unrecorded-call markers a client saw during the turn: each one
counts as an unrecorded call, so the turn's evidence is reported ``partial``.
"""

from __future__ import annotations

from typing import Literal

from gateway.domain.inputs.base import ToolInput, described

FINISH_OUTCOMES = ("completed", "failed", "cancelled", "handed_off")


class StartInteractionInput(ToolInput):
    question: str = described("本轮用户提出的完整问题。", "The user's complete question for this turn.", min_length=1)
    agent_name: str = described("固定的 Agent 名称。", "The fixed name of the agent.", min_length=1, max_length=128)
    conversation_mode: Literal["new", "continue"] = described(
        "没有当前 Conversation 时用 new（不传 conversation_id）；延续时用 continue 并传入 start 返回的 id。",
        "new when there is no current conversation (no conversation_id); continue with the id an earlier start returned.",
    )
    conversation_id: str | None = described("continue 时必填：此前 start 返回的 conversation_id。", "Required with continue: the conversation_id an earlier start returned.", default=None)


class FinishInteractionInput(ToolInput):
    interaction_id: str = described("start 返回的 interaction_id（只凭它即可定位本轮）。", "The interaction_id start returned (it alone names the turn).", min_length=1)
    outcome: Literal["completed", "failed", "cancelled", "handed_off"] = described(
        "本轮结果：completed 需要 answer；其余需要 reason。",
        "The outcome: completed needs answer; the others need reason.",
    )
    answer: str | None = described("completed 时的最终回答。", "The final answer when completed.", default=None)
    reason: str | None = described("failed / cancelled / handed_off 的原因。", "Why it failed, was cancelled or handed off.", default=None)
    partial_reasons: list[str] = described(
        "本轮工具结果中出现过的未记录标记（每项一次未记录调用）；有则证据为 partial。不要臆造。",
        "Unrecorded-call markers seen in this turn's tool results (one per unrecorded call); any makes the evidence partial. Never invent them.",
        default_factory=list, max_length=64,
    )
    conversation_id: str | None = described(
        "可选，旧写法：start 返回的 conversation_id；给出时必须与该 interaction 一致。",
        "Optional, the earlier form: the conversation_id start returned; when given it must match the interaction.",
        default=None,
    )
