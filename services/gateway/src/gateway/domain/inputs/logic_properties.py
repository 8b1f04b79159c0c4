"""Inputs of get_logic_properties_values.

Canonical names are the upstream's: ``_instance_identities`` (the earlier ``_instance_identity``
is still accepted). ``query``, ``additional_context`` and ``llm_model`` are accepted and not
used: no model runs here, the dynamic parameters come from ``dynamic_params``.
"""

from __future__ import annotations

from typing import Any

from gateway.domain.inputs.base import described
from gateway.domain.inputs.identities import Identities, WithIdentities, identities_field


class GetLogicPropertiesInput(WithIdentities):
    kn_id: str = described("知识网络 ID。", "Knowledge network id.", min_length=1)
    ot_id: str = described("对象类 ID。", "Object type id.", min_length=1)
    instance_identities: Identities = identities_field(
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
