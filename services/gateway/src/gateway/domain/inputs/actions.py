"""Inputs of the action tools.

Canonical names are the upstream's: ``_instance_identities``, ``dynamic_params``,
``action_type_id``; the earlier ``_instance_identity``, ``parameters`` and ``at_id`` (list
filter) are still accepted.
"""

from __future__ import annotations

from typing import Any, Literal

from gateway.domain.inputs.aliases import alias_text, one_of
from gateway.domain.inputs.base import ToolInput, described
from gateway.domain.inputs.identities import Identities, WithIdentities, identities_field


class GetActionInfoInput(WithIdentities):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    at_id: str = described("行动类 ID。", "Action type id.", min_length=1)
    instance_identities: Identities = identities_field(
        "可选。行动作用的实例主键（至多 100 个，取自查询结果的 _instance_identity）；"
        "不传只说明行动本身。",
        "Optional. Keys of the instances the action applies to (at most 100, from "
        "_instance_identity of query results); without them only the action is described.",
    )


class ExecuteActionInput(GetActionInfoInput):
    instance_identities: Identities = identities_field(
        "可选。目标实例（至多 100 个，取自查询结果的 _instance_identity）；不传时作用于该"
        "对象类的全部实例（超过 100 个返回 400）。",
        "Optional. Target instances (at most 100, from _instance_identity of query results); "
        "without them the action runs on every instance of its object type (more than 100 is "
        "a 400).",
    )
    dynamic_params: dict[str, Any] | None = described(
        "行动的动态参数（get_action_info 返回的 parameters.parameters schema），每个参数一个键。",
        "The action's dynamic parameters (the parameters.parameters schema get_action_info "
        "returns), one key per parameter.",
        default=None,
    )
    parameters: dict[str, Any] | None = described(*alias_text("dynamic_params"), default=None)

    def inputs(self) -> dict[str, Any]:
        return dict(one_of("dynamic_params", self.dynamic_params, "parameters", self.parameters)
                    or {})


class GetActionExecutionInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    execution_id: str = described("execute_action 返回的 execution_id。",
                                  "The execution_id execute_action returned.", min_length=1)


class ListActionExecutionsInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    action_type_id: str | None = described(
        "可选。只看该行动类的执行。", "Optional. Only this action type's executions.", default=None)
    at_id: str | None = described(*alias_text("action_type_id"), default=None)
    status: Literal["pending", "running", "completed", "failed", "cancelled"] | None = described(
        "可选。按状态过滤。", "Optional. Filter by status.", default=None)
    trigger_type: Literal["manual", "scheduled"] | None = described(
        "可选。按触发方式过滤：execute_action 提交的都是 manual，这里没有定时触发。",
        "Optional. Filter by trigger: everything execute_action submits is manual; nothing "
        "here is scheduled.", default=None)
    start_time_from: int | None = described(
        "可选。提交时间下界（Unix 毫秒，含）。", "Optional. Earliest request time (Unix ms, inclusive).",
        default=None, ge=0)
    start_time_to: int | None = described(
        "可选。提交时间上界（Unix 毫秒，含）。", "Optional. Latest request time (Unix ms, inclusive).",
        default=None, ge=0)
    limit: int = described("每页条数，1-1000，默认 20。", "Page size, 1-1000, default 20.",
                           default=20, ge=1, le=1000)
    offset: int = described("跳过的条数（按请求时间倒序）。与 search_after 互斥。",
                            "How many to skip (newest first); exclusive with search_after.",
                            default=0, ge=0)
    search_after: list[Any] | None = described(
        "游标翻页：上一页返回的 search_after 原值。", "Cursor paging: the previous page's "
        "search_after, unchanged.", default=None)

    def action_filter(self) -> str | None:
        value: str | None = one_of("action_type_id", self.action_type_id, "at_id", self.at_id)
        return value
