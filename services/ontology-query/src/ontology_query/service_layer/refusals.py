"""Refusals shared by ontology-query's handlers: a missing network or object type, and the
input codes logic properties and actions share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.i18n import register_messages
from ontology_query.domain.errors import NOT_FOUND_CODES, DomainError
from ontology_query.domain.instances import require_object_type
from ontology_query.domain.model import ObjectType
from ontology_query.domain.store import OntologyStore
from ontology_query.service_layer.projection import OntologyState


class LogicCode:
    """Codes of logic property and action inputs (identities, parameters, definitions)."""

    MISSING_INPUT_PARAMS = "MISSING_INPUT_PARAMS"
    INVALID_INPUT_PARAMS = "INVALID_INPUT_PARAMS"
    LOGIC_PROPERTY_NOT_FOUND = "logic_property_not_found"
    INVALID_INSTANCE_IDENTITY = "invalid_instance_identity"
    INSTANCE_NOT_FOUND = "instance_not_found"
    INSTANCE_NOT_VISIBLE = "instance_not_visible"
    DEFINITION_INVALID = "schema_definition_invalid"


register_messages({
    LogicCode.MISSING_INPUT_PARAMS: {
        "zh-CN": "缺少必需的输入参数：{summary}。"
                 "请在 dynamic_params（行动为 parameters）中补齐后重试。",
        "en-US": "Missing required input parameters: {summary}. Supply them in dynamic_params "
                 "(parameters for actions) and retry.",
    },
    LogicCode.INVALID_INPUT_PARAMS: {
        "zh-CN": "输入参数不合法：{reason}",
        "en-US": "Invalid input parameters: {reason}",
    },
    LogicCode.LOGIC_PROPERTY_NOT_FOUND: {
        "zh-CN": "对象类 {ot_id} 没有逻辑属性 {names}；可用：{available}。",
        "en-US": "Object type {ot_id} has no logic property {names}; available: {available}.",
    },
    LogicCode.INVALID_INSTANCE_IDENTITY: {
        "zh-CN": "第 {index} 个 _instance_identity 不合法：{reason}。"
                 "请使用查询结果中的 _instance_identity 原值。",
        "en-US": "_instance_identity #{index} is invalid: {reason}. Pass the _instance_identity "
                 "a query returned, unchanged.",
    },
    LogicCode.INSTANCE_NOT_FOUND: {
        "zh-CN": "对象类 {ot_id} 中不存在实例 {identities}。",
        "en-US": "Object type {ot_id} has no instance {identities}.",
    },
    LogicCode.INSTANCE_NOT_VISIBLE: {
        "zh-CN": "对象类 {ot_id} 的实例 {identities} 不在你的行访问范围内，不可见；"
                 "详见 permission_guidance。",
        "en-US": "Instance {identities} of object type {ot_id} is outside your row access and "
                 "not visible; see permission_guidance.",
    },
    LogicCode.DEFINITION_INVALID: {
        "zh-CN": "Schema 中 {what} 的定义不合法：{reason}；请联系知识网络管理员。",
        "en-US": "The schema definition of {what} is invalid: {reason}; "
                 "contact the network's administrator.",
    },
})


def api_error(error: DomainError) -> ApiError:
    """The envelope form of a domain refusal."""
    status = 404 if error.code in NOT_FOUND_CODES else 400
    return ApiError(error.code, status, params=error.params, details=error.details)


def require_network(state: OntologyState, kn_id: str) -> ev.NetworkUpserted:
    """The network's record, or 404 when it does not exist."""
    network = state.access.networks.get(kn_id)
    if network is None:
        raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": f"knowledge network {kn_id}"},
                       details={"kn_id": kn_id})
    return network


def network_store(state: OntologyState, kn_id: str) -> OntologyStore:
    """The network's store, or 404 when the network does not exist."""
    require_network(state, kn_id)
    return state.stores.get(kn_id) or OntologyStore(kn_id)  # reads never create state


def object_type_of(store: OntologyStore, ot_id: str) -> ObjectType:
    try:
        return require_object_type(store, ot_id)
    except DomainError as err:
        raise api_error(err) from err


def invalid_identity(index: int, reason: str, **details: Any) -> ApiError:
    return ApiError(LogicCode.INVALID_INSTANCE_IDENTITY, 400,
                    params={"index": index, "reason": reason}, details={"index": index, **details})


def missing_params_error(missing: Sequence[tuple[str, str, Sequence[str]]]) -> ApiError:
    """``MISSING_INPUT_PARAMS`` for ``(owner key, owner name, missing names)`` triples."""
    summary = "; ".join(f"{name}: {', '.join(params)}" for _, name, params in missing)
    return ApiError(
        LogicCode.MISSING_INPUT_PARAMS, 400, params={"summary": summary},
        details={"missing": [{key: name, "params": [{"name": p} for p in params]}
                             for key, name, params in missing]},
    )


def invalid_params(reason: str, **details: Any) -> ApiError:
    return ApiError(LogicCode.INVALID_INPUT_PARAMS, 400, params={"reason": reason}, details=details)


def definition_invalid(what: str, reason: str) -> ApiError:
    return ApiError(LogicCode.DEFINITION_INVALID, 422, params={"what": what, "reason": reason},
                    details={"definition": what, "reason": reason})
