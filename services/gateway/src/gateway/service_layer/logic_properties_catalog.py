"""The logic-property tool of the gateway: definitions for the registry."""

from __future__ import annotations

from bkn_common.contracts.i18n import Language
from gateway.domain.inputs.logic_properties import GetLogicPropertiesInput
from gateway.service_layer import logic_properties
from gateway.service_layer.registry import ToolDefinition

DESCRIPTIONS: dict[str, dict[Language, str]] = {
    "get_logic_properties_values": {
        "zh-CN": "计算实例的逻辑属性：metric 在关联实例上聚合（计数、求和、均值、最小、最大，"
                 "可带时间窗口与分组），operator 以知识网络托管代理调用绑定的工具（需要网络 execute "
                 "权限）。datas 与 _instance_identity 逐项对齐；缺少参数返回 400 "
                 "MISSING_INPUT_PARAMS 并按属性列出。",
        "en-US": "Compute logic properties of instances: a metric aggregates related instances "
                 "(count, sum, avg, min, max, with an optional time window and grouping); an "
                 "operator runs its bound tool through the network's hosted proxy (needs the "
                 "network's execute permission). datas align with _instance_identity; missing "
                 "parameters give 400 MISSING_INPUT_PARAMS listed per property.",
    },
}


def logic_property_tools() -> list[ToolDefinition]:
    d = DESCRIPTIONS
    return [
        ToolDefinition("get_logic_properties_values", GetLogicPropertiesInput,
                       d["get_logic_properties_values"],
                       logic_properties.get_logic_properties_values,
                       evidence=logic_properties.logic_evidence),
    ]
