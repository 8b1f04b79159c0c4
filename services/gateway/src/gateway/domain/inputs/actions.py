"""Inputs of the logic-property and action tools.

Canonical names are the upstream's: ``_instance_identities``, ``dynamic_params`` (actions),
``action_type_id``; the earlier ``_instance_identity``, ``parameters`` and ``at_id`` (list
filter) are still accepted. ``query``, ``additional_context`` and ``llm_model`` of
``get_logic_properties_values`` are accepted and not used: no model runs here, the dynamic
parameters come from ``dynamic_params``.
"""

from __future__ import annotations

from typing import Any, Literal

from gateway.domain.inputs.aliases import alias_text, one_of
from gateway.domain.inputs.base import ToolInput, described

MAX_INSTANCES = 100
Identities = list[dict[str, Any]] | None


def _identities(zh: str, en: str) -> Any:
    return described(zh, en, alias="_instance_identities", default=None, max_length=MAX_INSTANCES)


def _legacy_identities() -> Any:
    return described(*alias_text("_instance_identities"), alias="_instance_identity",
                     default=None, max_length=MAX_INSTANCES)


class _WithIdentities(ToolInput):
    instance_identities: Identities
    instance_identity: Identities = _legacy_identities()

    def identities(self) -> list[dict[str, Any]]:
        value = one_of("_instance_identities", self.instance_identities,
                       "_instance_identity", self.instance_identity)
        return list(value or [])


class GetLogicPropertiesInput(_WithIdentities):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    ot_id: str = described("对象类 ID。", "Object type id.", min_length=1)
    instance_identities: Identities = _identities(
        "实例主键列表（1-100 个，必填；也可用旧名 _instance_identity），取自查询结果的 "
        "_instance_identity；结果 datas 与之一一对齐。",
        "Instance keys (1-100, required; the earlier name _instance_identity also works), the "
        "_instance_identity values of query results; the result's datas align with them one "
        "to one.",
    )
    properties: list[str] = described(
        "要计算的逻辑属性名（对象类的 logic_properties）。",
        "Names of the logic properties to compute (the object type's logic_properties).",
        min_length=1, max_length=20,
    )
    dynamic_params: dict[str, dict[str, Any]] = described(
        "按逻辑属性给出的参数：{属性名: {参数名: 值}}。属性声明的参数都必填，"
        "缺失返回 400 MISSING_INPUT_PARAMS；metric 的 start_time / end_time "
        "为 ISO-8601 时间或毫秒时间戳（闭区间）。",
        "Parameters per logic property: {property: {parameter: value}}. Every declared parameter "
        "is required; missing ones give 400 MISSING_INPUT_PARAMS. A metric's start_time / "
        "end_time are ISO-8601 times or epoch milliseconds (both ends inclusive).",
        default_factory=dict,
    )
    query: str | None = described(
        "可接受但不使用：这里不运行模型，参数不从 query 推断，请用 dynamic_params 给出。",
        "Accepted and not used: no model runs here, so parameters are never inferred from the "
        "query; give them in dynamic_params.",
        default=None,
    )
    additional_context: str | None = described(
        "可接受但不使用（同 query）。", "Accepted and not used (as query).", default=None)
    llm_model: str | None = described(
        "可接受但忽略：这里不运行任何模型。", "Accepted and ignored: no model runs here.",
        default=None)


class GetActionInfoInput(_WithIdentities):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    at_id: str = described("行动类 ID。", "Action type id.", min_length=1)
    instance_identities: Identities = _identities(
        "可选。行动作用的实例主键（至多 100 个，取自查询结果的 _instance_identity）；"
        "不传只说明行动本身。",
        "Optional. Keys of the instances the action applies to (at most 100, from "
        "_instance_identity of query results); without them only the action is described.",
    )


class ExecuteActionInput(GetActionInfoInput):
    instance_identities: Identities = _identities(
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
