"""The console's words in zh-CN and en-US (chosen by ``Accept-Language``)."""

from __future__ import annotations

from collections.abc import Callable

from bkn_common.contracts.i18n import Language

TEXTS: dict[str, tuple[str, str]] = {  # key: (en-US, zh-CN)
    "title": ("Context Loader trace console", "Context Loader 追踪控制台"),
    "interactions": ("Interactions", "交互"),
    "dead_letters": ("Dead letters", "死信"),
    "projections": ("Projections", "投影"),
    "logout": ("Log out", "退出登录"),
    "login": ("Log in", "登录"),
    "login_hint": ("Log in with an operator credential (an AppKey of an account with the operator role).",
                   "请使用运维凭证登录（具有 operator 角色的账户的 AppKey）。"),
    "app_key": ("Operator AppKey", "运维 AppKey"),
    "login_failed": ("That credential was not accepted.", "凭证无效。"),
    "not_operator": ("This account has no operator role.", "该账户没有 operator 角色。"),
    "filter": ("Filter", "筛选"),
    "clear": ("Clear", "清除"),
    "account": ("Account", "账户"),
    "agent": ("Agent", "智能体"),
    "kn_id": ("Knowledge network", "知识网络"),
    "tool": ("Tool", "工具"),
    "outcome": ("Outcome", "结果"),
    "evidence_status": ("Evidence status", "证据状态"),
    "execution_status": ("Execution status", "执行状态"),
    "since": ("Since", "起始时间"),
    "until": ("Until", "截止时间"),
    "started": ("Started", "开始时间"),
    "finished": ("Finished", "结束时间"),
    "question": ("Question", "问题"),
    "answer": ("Answer", "回答"),
    "operations": ("Operations", "操作"),
    "any": ("any", "全部"),
    "none_found": ("Nothing matches.", "没有匹配的记录。"),
    "next_page": ("Older", "更早"),
    "first_page": ("Newest", "最新"),
    "live": ("Live: refreshed every few seconds", "实时：每隔几秒刷新"),
    "timeline": ("Timeline", "时间线"),
    "span_tree": ("Spans", "调用链"),
    "receipt": ("Receipt", "回执"),
    "execution_receipts": ("Execution receipts", "执行回执"),
    "evidence": ("Evidence", "证据"),
    "status": ("Status", "状态"),
    "duration": ("Duration", "耗时"),
    "conversation": ("Conversation", "会话"),
    "service": ("Service", "服务"),
    "reachable": ("Reachable", "可达"),
    "ready": ("Ready", "就绪"),
    "caught_up": ("Caught up", "已追平"),
    "lag": ("Lag (records)", "滞后（条）"),
    "applied": ("Applied since start", "启动以来已应用"),
    "dead_lettered": ("Dead-lettered since start", "启动以来死信"),
    "checkpoint": ("Last checkpoint", "最近检查点"),
    "replay": ("Replay command", "重放命令"),
    "copy": ("Copy", "复制"),
    "topic": ("Topic", "主题"),
    "reason": ("Reason", "原因"),
    "source": ("Source (topic / partition @ offset)", "来源（主题 / 分区 @ 偏移）"),
    "first_bytes": ("First bytes", "前若干字节"),
    "no_dead_letters": ("No dead letters.", "没有死信。"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "refused": ("Refused", "请求被拒绝"),
    "back": ("Back to the interactions", "返回交互列表"),
    "bundle": ("Export bundle (JSON)", "导出包（JSON）"),
}


def translator(language: Language) -> Callable[[str], str]:
    index = 1 if language == "zh-CN" else 0

    def text(key: str) -> str:
        return TEXTS[key][index]

    return text
