"""Refusals of the trace core (stable codes, rendered in zh-CN or en-US)."""

from __future__ import annotations

from bkn_common.contracts.i18n import register_messages


class TraceCode:
    TRACE_CORE_UNAVAILABLE = "trace_core_unavailable"
    INVALID_CONVERSATION_MODE = "invalid_conversation_mode"
    CONVERSATION_NOT_FOUND = "conversation_not_found"
    INTERACTION_NOT_FOUND = "interaction_not_found"
    INTERACTION_ACTIVE = "interaction_active"
    INTERACTION_NOT_ACTIVE = "interaction_not_active"
    INTERACTION_FINISHED = "interaction_finished"
    ANSWER_REQUIRED = "answer_required"
    REASON_REQUIRED = "reason_required"
    OPERATION_NOT_FOUND = "operation_not_found"
    RECEIPT_PENDING = "receipt_pending"
    OPERATION_LIMIT_EXCEEDED = "operation_limit_exceeded"


register_messages(
    {
        TraceCode.TRACE_CORE_UNAVAILABLE: {
            "zh-CN": "Trace Core 暂不可用（{reason}），无法创建或记录受管控会话；请稍后重试 start，不要伪造 ID。",
            "en-US": "The trace core is unavailable ({reason}); managed conversations cannot be created or recorded. Retry start later and do not invent ids.",
        },
        TraceCode.INVALID_CONVERSATION_MODE: {
            "zh-CN": "conversation_mode 为 {mode} 与 conversation_id 不匹配：new 开始新会话，不得携带 conversation_id；continue 必须携带 start 返回的 conversation_id。",
            "en-US": "conversation_mode {mode} does not fit conversation_id: new starts a conversation and must not carry conversation_id; continue needs the conversation_id returned by start.",
        },
        TraceCode.CONVERSATION_NOT_FOUND: {
            "zh-CN": "会话 {conversation_id} 不存在或不属于当前账号；请使用 bkn_start_interaction 返回的 conversation_id，或以 new 模式开始新会话。",
            "en-US": "Conversation {conversation_id} does not exist or belongs to another account; use a conversation_id returned by bkn_start_interaction, or start a new conversation with mode new.",
        },
        TraceCode.INTERACTION_NOT_FOUND: {
            "zh-CN": "交互 {interaction_id} 不存在、不属于所给会话或不属于当前账号；ID 必须来自 bkn_start_interaction。",
            "en-US": "Interaction {interaction_id} does not exist, is not part of the given conversation, or belongs to another account; ids must come from bkn_start_interaction.",
        },
        TraceCode.INTERACTION_ACTIVE: {
            "zh-CN": "会话 {conversation_id} 中已有进行中的交互 {active_interaction_id}；请先 finish 它，或等待其租约过期。",
            "en-US": "Conversation {conversation_id} already has an active interaction {active_interaction_id}; finish it first or wait for its lease to expire.",
        },
        TraceCode.INTERACTION_NOT_ACTIVE: {
            "zh-CN": "交互 {interaction_id} 已结束（{status}），不能再记录操作；请用 bkn_start_interaction 开始新的交互。",
            "en-US": "Interaction {interaction_id} is no longer active ({status}); no more operations can be recorded. Start a new interaction with bkn_start_interaction.",
        },
        TraceCode.INTERACTION_FINISHED: {
            "zh-CN": "交互 {interaction_id} 已以 {outcome} 结束，不能以不同结果再次结束。",
            "en-US": "Interaction {interaction_id} already finished as {outcome}; it cannot be finished again with a different result.",
        },
        TraceCode.ANSWER_REQUIRED: {
            "zh-CN": "outcome 为 completed 时必须提供 answer。",
            "en-US": "An answer is required when the outcome is completed.",
        },
        TraceCode.REASON_REQUIRED: {
            "zh-CN": "outcome 为 {outcome} 时必须提供 reason。",
            "en-US": "A reason is required when the outcome is {outcome}.",
        },
        TraceCode.OPERATION_NOT_FOUND: {
            "zh-CN": "操作 {operation_id} 不存在或不属于当前账号。",
            "en-US": "Operation {operation_id} does not exist or belongs to another account.",
        },
        TraceCode.RECEIPT_PENDING: {
            "zh-CN": "同一调用（操作 {operation_id}）仍在执行，回执尚未完成；请稍后用同一调用 ID 重试。",
            "en-US": "The same call (operation {operation_id}) is still running and its receipt is pending; retry later with the same invocation id.",
        },
        TraceCode.OPERATION_LIMIT_EXCEEDED: {
            "zh-CN": "交互 {interaction_id} 已记录 {limit} 个操作，达到单个交互的上限；请 finish 当前交互并开始新的交互。",
            "en-US": "Interaction {interaction_id} already recorded {limit} operations, the limit per interaction; finish it and start a new interaction.",
        },
    }
)
