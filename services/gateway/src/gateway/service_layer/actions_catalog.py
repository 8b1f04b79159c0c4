"""Action tools of the gateway: definitions for the registry."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.actions import (
    ExecuteActionInput,
    GetActionExecutionInput,
    GetActionInfoInput,
    ListActionExecutionsInput,
)
from gateway.service_layer import actions
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "get_action_info": {
        "zh-CN": "取得行动类在给定实例上的函数调用定义（名称、说明、参数 JSON Schema，"
                 "目标实例已预先绑定）与每次工具调用已绑定的参数，供 execute_action 使用。",
        "en-US": "Get the function-call definition of an action type on given instances (name, "
                 "description, parameters JSON schema with the target instances pre-bound) and "
                 "the arguments already bound for each tool call, for execute_action.",
    },
    "execute_action": {
        "zh-CN": "异步执行行动：立即返回 execution_id，工具按行动类的模式逐实例或整体一次执行。"
                 "有不可回滚的副作用；相同提交 60 秒内重复返回 409 "
                 "duplicate_action_submission。用 get_action_execution 查询进度与结果。",
        "en-US": "Run an action asynchronously: returns an execution_id at once; the tool runs "
                 "per instance or once, as the action type says. Side effects cannot be undone; "
                 "the same submission within 60 s is refused with 409 "
                 "duplicate_action_submission. Follow it with get_action_execution.",
    },
    "get_action_execution": {
        "zh-CN": "查询一次行动执行的状态（pending、running、completed、failed）、逐实例结果与 "
                 "success_count / failed_count。completed 表示执行结束，不代表每个实例都成功。",
        "en-US": "Get an action execution's status (pending, running, completed, failed), its "
                 "per-instance results and success_count / failed_count. completed means the "
                 "run ended, not that every instance succeeded.",
    },
    "list_action_executions": {
        "zh-CN": "分页列出知识网络上的行动执行（按请求时间倒序），可按行动类与状态过滤。",
        "en-US": "List a knowledge network's action executions, newest first, paged; filter by "
                 "action type and status.",
    },
}


def action_tools() -> list[ToolDefinition]:
    d = DESCRIPTIONS
    return [
        ToolDefinition("get_action_info", GetActionInfoInput, d["get_action_info"],
                       actions.get_action_info),
        ToolDefinition("execute_action", ExecuteActionInput, d["execute_action"],
                       actions.execute_action, kind="execution",
                       evidence=actions.action_evidence),
        ToolDefinition("get_action_execution", GetActionExecutionInput,
                       d["get_action_execution"], actions.get_action_execution),
        ToolDefinition("list_action_executions", ListActionExecutionsInput,
                       d["list_action_executions"], actions.list_action_executions),
    ]
