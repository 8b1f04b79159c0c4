"""Gateway refusal codes and their messages."""

from __future__ import annotations

from bkn_common.contracts.i18n import register_messages


class GatewayCode:
    CONVERSATION_REQUIRED = "conversation_required"
    INVALID_BKN_CONTEXT = "invalid_bkn_context"
    INVALID_LIMIT = "invalid_limit"
    INDEX_UNAVAILABLE = "capability_index_unavailable"
    INVALID_INVOCATION_ID = "invalid_invocation_id"
    ORIGIN_NOT_ALLOWED = "origin_not_allowed"
    RECEIPT_PENDING = "receipt_pending"
    TRACE_CORE_UNAVAILABLE = "trace_core_unavailable"
    RATE_LIMITED = "rate_limited"
    DUPLICATE_ACTION_SUBMISSION = "duplicate_action_submission"


register_messages(
    {
        GatewayCode.CONVERSATION_REQUIRED: {
            "zh-CN": "此调用需要受管 Interaction：请先调用 bkn_start_interaction 获取 conversation_id 与 interaction_id，再在 bkn_context 中携带它们。",
            "en-US": "This call needs a managed interaction: call bkn_start_interaction first, then pass its conversation_id and interaction_id in bkn_context.",
        },
        GatewayCode.INVALID_BKN_CONTEXT: {
            "zh-CN": "bkn_context 不合法：{reason}。它要么省略或为空对象，要么同时包含 bkn_start_interaction 返回的 conversation_id 与 interaction_id。",
            "en-US": "Invalid bkn_context: {reason}. Omit it or send {{}}, or send both conversation_id and interaction_id as returned by bkn_start_interaction.",
        },
        GatewayCode.INVALID_LIMIT: {
            "zh-CN": "limit 取值 {value} 不合法，应为 {low} 到 {high} 之间的整数。",
            "en-US": "limit {value} is invalid; use an integer from {low} to {high}.",
        },
        GatewayCode.INDEX_UNAVAILABLE: {
            "zh-CN": "能力检索索引暂不可用；{reason}。请稍后重试，或去掉 query / metadata_types 按挂载顺序列出。",
            "en-US": "The capability index is unavailable; {reason}. Retry later, or list in binding order without query / metadata_types.",
        },
        GatewayCode.INVALID_INVOCATION_ID: {
            "zh-CN": "X-OpenBKN-Client-Invocation-Id 不合法：最长 256 个可打印 ASCII 字符。",
            "en-US": "X-OpenBKN-Client-Invocation-Id is invalid: at most 256 printable ASCII characters.",
        },
        GatewayCode.TRACE_CORE_UNAVAILABLE: {
            "zh-CN": "Trace Core 暂不可用，无法创建或结束受管 Interaction；不会伪造 ID，请稍后重试。",
            "en-US": "The trace core is unavailable, so no managed interaction can be started or finished; ids are never fabricated. Retry shortly.",
        },
        GatewayCode.RATE_LIMITED: {
            "zh-CN": "请求过于频繁：{tool} 超出了本账户的调用速率限制，请在 {retry_after} 秒后重试。",
            "en-US": "Too many calls: {tool} is over this account's rate limit; retry in {retry_after} s.",
        },
        GatewayCode.RECEIPT_PENDING: {
            "zh-CN": "同一调用仍在执行中，回执尚未生成；请稍后用相同的调用 ID 重试以取得原结果。",
            "en-US": "The same call is still running and its receipt is pending; retry later with the same invocation id to get the original outcome.",
        },
        GatewayCode.ORIGIN_NOT_ALLOWED: {
            "zh-CN": "请求来源 {origin} 不被允许。",
            "en-US": "Origin {origin} is not allowed.",
        },
        GatewayCode.DUPLICATE_ACTION_SUBMISSION: {
            "zh-CN": "相同的行动提交（同一调用者、行动类、目标实例与参数）{window} 秒内已受理为 {execution_id}；请用 get_action_execution 查询它的进度，不要重复提交。",
            "en-US": "The same action submission (caller, action type, targets and parameters) was accepted within the last {window} s as {execution_id}; follow it with get_action_execution instead of submitting again.",
        },
    }
)
