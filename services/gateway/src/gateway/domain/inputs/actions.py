"""Inputs of the logic-property and action tools."""

from __future__ import annotations

from typing import Any, Literal

from gateway.domain.inputs.base import ToolInput, described

MAX_INSTANCES = 100


def _identities(zh: str, en: str) -> Any:
    return described(zh, en, alias="_instance_identity", min_length=1, max_length=MAX_INSTANCES)


class GetLogicPropertiesInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    ot_id: str = described("对象类 ID。", "Object type id.", min_length=1)
    instance_identity: list[dict[str, Any]] = _identities(
        "实例主键列表（1-100 个），取自查询结果的 _instance_identity；结果 datas 与之一一对齐。",
        "Instance keys (1-100), the _instance_identity values of query results; the result's "
        "datas align with them one to one.",
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


class GetActionInfoInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    at_id: str = described("行动类 ID。", "Action type id.", min_length=1)
    instance_identity: list[dict[str, Any]] = _identities(
        "行动作用的实例主键（1-100 个，取自查询结果的 _instance_identity）。",
        "Keys of the instances the action applies to (1-100, from _instance_identity of query "
        "results).",
    )


class ExecuteActionInput(GetActionInfoInput):
    parameters: dict[str, Any] = described(
        "行动的输入参数（get_action_info 返回的 parameters.parameters schema）。",
        "The action's input parameters (the parameters.parameters schema get_action_info returns).",
        default_factory=dict,
    )


class GetActionExecutionInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    execution_id: str = described("execute_action 返回的 execution_id。",
                                  "The execution_id execute_action returned.", min_length=1)


class ListActionExecutionsInput(ToolInput):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    at_id: str | None = described("可选。只看该行动类的执行。",
                                  "Optional. Only this action type's executions.", default=None)
    status: Literal["pending", "running", "completed", "failed"] | None = described(
        "可选。按状态过滤。", "Optional. Filter by status.", default=None)
    limit: int = described("每页条数，1-100，默认 20。", "Page size, 1-100, default 20.",
                           default=20, ge=1, le=100)
    offset: int = described("跳过的条数（按请求时间倒序）。", "How many to skip (newest first).",
                            default=0, ge=0)
