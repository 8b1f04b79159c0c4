"""One caller's object-type permissions during one request: who calls, the refusals, the
row filters bound to their types and the ``permission_guidance`` results carry.

What a grant allows is decided in ``type_policy.py``; how guidance reads, in ``guidance.py``.
Instance queries and logic properties both ask a :class:`CallerPolicy`, so a denial, a
broken row filter and the type's display name come out the same from either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.i18n import Language, register_messages
from bkn_common.domain.access import NetworkAccess
from ontology_query.domain.conditions import bind_condition
from ontology_query.domain.errors import DomainError
from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.store import OntologyStore
from ontology_query.service_layer.guidance import (
    PermissionRequest,
    denied_guidance,
    narrowed_guidance,
)
from ontology_query.service_layer.type_policy import (
    ObjectTypePolicy,
    PropertyRule,
    policy_for,
    referenced_fields,
    sorted_fields,
)

DENIED_CODE = "OntologyQuery.ObjectType.PermissionDenied"
PROPERTY_DENIED_CODE = "OntologyQuery.ObjectType.PropertyPermissionDenied"
INVALID_ROW_FILTER_CODE = "OntologyQuery.ObjectType.InvalidRowFilter"
register_messages({
    DENIED_CODE: {
        "zh-CN": "权限不足：不能查看对象类 {kn_id}/{ot_id} 的实例，详见 permission_guidance",
        "en-US": "Permission denied: instances of object type {kn_id}/{ot_id} may not be read; "
                 "see permission_guidance",
    },
    PROPERTY_DENIED_CODE: {
        "zh-CN": "权限不足：对象类 {kn_id}/{ot_id} 的属性 {properties} 不可见原始值，"
                 "不能用于过滤或排序，详见 permission_guidance",
        "en-US": "Permission denied: properties {properties} of object type {kn_id}/{ot_id} are "
                 "hidden and cannot be used to filter or sort; see permission_guidance",
    },
    INVALID_ROW_FILTER_CODE: {
        "zh-CN": "对象类 {kn_id}/{ot_id} 的行过滤授权配置有误，请联系管理员",
        "en-US": "The row filter granted on object type {kn_id}/{ot_id} is invalid; "
                 "ask an administrator",
    },
})  # fmt: skip


@dataclass(frozen=True)
class Caller:
    account: str
    language: Language = "en-US"
    permission_request: PermissionRequest | None = None


class CallerPolicy:
    """The caller's policies on the types of one network's ``store`` (looked up once each)."""

    def __init__(self, access: NetworkAccess, store: OntologyStore, caller: Caller) -> None:
        self.access, self.store, self.caller = access, store, caller
        self.kn_id = store.kn_id
        self._policies: dict[str, ObjectTypePolicy] = {}

    def policy(self, ot_id: str) -> ObjectTypePolicy:
        found = self._policies.get(ot_id)
        if found is None:
            found = policy_for(self.access, self.kn_id, self.caller.account, ot_id)
            self._policies[ot_id] = found
        return found

    def _name(self, ot_id: str) -> str | None:
        object_type = self.store.object_type(ot_id)
        return object_type.name if object_type is not None else None

    def _params(self, object_type: ObjectType) -> dict[str, str]:
        return {"kn_id": self.kn_id, "ot_id": object_type.id}

    def readable(self, object_type: ObjectType) -> ObjectTypePolicy:
        """The caller's policy on ``object_type``; 403 with guidance when it may not read it."""
        policy = self.policy(object_type.id)
        if not policy.readable:
            guidance = denied_guidance(policy, language=self.caller.language,
                                       name=self._name(object_type.id),
                                       request=self.caller.permission_request)
            raise ApiError(DENIED_CODE, 403, params=self._params(object_type),
                           details={"resource": f"object_type:{self.kn_id}/{object_type.id}"},
                           extra={"permission_guidance": guidance})  # fmt: skip
        return policy

    def check(self, object_type: ObjectType, condition: object, sort: object) -> ObjectTypePolicy:
        """403 unless the type is readable and the condition and sort use visible properties;
        500 when the row filter granted on it does not fit the type."""
        policy = self.readable(object_type)
        used = (referenced_fields(condition) | sorted_fields(sort)) & set(policy.property_rules)
        if used:
            narrowed = self.narrowed(policy, {k: policy.property_rules[k] for k in used})
            raise ApiError(PROPERTY_DENIED_CODE, 403,
                           params={**self._params(object_type),
                                   "properties": ", ".join(sorted(used))},
                           details={"properties": sorted(used)},
                           extra={"permission_guidance": narrowed})  # fmt: skip
        self.row_test(object_type, policy)
        return policy

    def row_test(
        self, object_type: ObjectType, policy: ObjectTypePolicy
    ) -> Callable[[ObjectInstance], bool]:
        """Whether the policy's row filter admits an instance; 500 when the filter does not
        fit the type."""
        if policy.row_filter is None:
            return lambda _obj: True
        try:
            bound = bind_condition(policy.row_filter, object_type)
        except DomainError as exc:
            raise ApiError(INVALID_ROW_FILTER_CODE, 500, params=self._params(object_type),
                           details={"error": exc.code}) from exc  # fmt: skip
        assert bound is not None
        return lambda obj: bool(bound.predicate(obj.properties))

    def narrowed(
        self, policy: ObjectTypePolicy, hidden: Mapping[str, PropertyRule]
    ) -> dict[str, Any] | None:
        """Guidance for a result ``policy`` narrowed (``hidden`` values, its row filter)."""
        return narrowed_guidance(policy, language=self.caller.language,
                                 name=self._name(policy.ot_id), hidden=hidden,
                                 request=self.caller.permission_request)  # fmt: skip

    def guidance(
        self, ot_ids: Iterable[str], considered: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Guidance per affected type of ``ot_ids`` (first-seen order), counting the hidden
        properties among ``considered`` (all when ``None``)."""
        out = []
        for ot_id in dict.fromkeys(ot_ids):
            policy = self.policy(ot_id)
            found = self.narrowed(policy, policy.hidden_properties(considered))
            if found is not None:
                out.append(found)
        return out

    def redact_all(self, objects: Mapping[str, dict[str, Any]]) -> None:
        for obj in objects.values():
            self.policy(obj["_object_type_id"]).redact(obj)
