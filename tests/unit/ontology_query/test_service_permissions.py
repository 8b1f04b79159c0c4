"""Object-type policies (grants → readable, hidden properties, row filter) and their guidance."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import EventRecord
from bkn_common.domain.access import NetworkAccess
from ontology_query.domain.conditions import Leaf, Logical
from ontology_query.service_layer.guidance import (
    PermissionRequest,
    denied_guidance,
    narrowed_guidance,
)
from ontology_query.service_layer.type_policy import (
    ObjectTypePolicy,
    policy_for,
    referenced_fields,
    sorted_fields,
    with_row_filter,
)

EAST = {"field": "region", "operation": "==", "value": "华东", "value_from": "const"}
NORTH = {"field": "region", "operation": "==", "value": "华北", "value_from": "const"}


def _access(*grants: ev.ResourceGrant) -> NetworkAccess:
    access = NetworkAccess()
    network = ev.NetworkUpserted(
        kn_id="kn", name="KN",
        grants=(ev.NetworkGrant(account="a", permissions=("view_detail",)),),
        resource_grants=grants,
    )  # fmt: skip
    access.apply(EventRecord(event=network, event_id="1", occurred_at="2025-01-01T00:00:00Z"))
    return access


def _grant(**kwargs: object) -> ev.ResourceGrant:
    fields: dict[str, object] = {
        "account": "a", "resource_type": "object_type", "resource_id": "customer",
        "operations": ("view_detail",), **kwargs,
    }  # fmt: skip
    return ev.ResourceGrant.model_validate(fields)


def test_no_grant_on_the_type_means_network_view_detail_reads_everything() -> None:
    policy = policy_for(_access(_grant(resource_id="supplier")), "kn", "a", "customer")
    assert policy.readable and not policy.restricted and policy.may_view_definition


def test_a_grant_without_view_detail_refuses_reading() -> None:
    policy = policy_for(_access(_grant(operations=("execute",))), "kn", "a", "customer")
    assert not policy.readable and policy.restricted


def test_property_rules_and_row_filter_come_from_the_grant() -> None:
    grant = _grant(property_grants={"phone": "masked", "limit": "name_only"}, row_filter=EAST)
    policy = policy_for(_access(grant), "kn", "a", "customer")
    assert policy.property_rules == {"phone": "masked", "limit": "name_only"}
    assert policy.row_filter == Leaf("region", "==", "华东")
    assert policy.hidden_properties(["phone", "name"]) == {"phone": "masked"}


def test_several_grants_combine_permissively() -> None:
    first = _grant(property_grants={"phone": "name_only", "limit": "name_only"}, row_filter=EAST)
    second = _grant(property_grants={"phone": "masked"}, row_filter=NORTH)
    policy = policy_for(_access(first, second), "kn", "a", "customer")
    assert policy.property_rules == {"phone": "masked"}
    assert isinstance(policy.row_filter, Logical) and policy.row_filter.operation == "or"
    unfiltered = policy_for(_access(first, _grant()), "kn", "a", "customer")
    assert unfiltered.row_filter is None and unfiltered.property_rules == {}


def test_redact_masks_values_and_keeps_name_only_keys() -> None:
    rules = {"id": "masked", "phone": "masked", "limit": "name_only"}
    policy = ObjectTypePolicy("kn", "customer", property_rules=rules)  # type: ignore[arg-type]
    obj = {"id": "C1", "phone": "138", "name": "x", "_object_type_id": "customer",
           "_instance_identity": {"id": "C1"}}
    assert policy.redact(obj) == {
        "id": "***", "phone": "***", "name": "x", "limit": None, "_object_type_id": "customer",
        "_instance_identity": {"id": "***"},
    }
    assert policy.redact({"phone": None})["phone"] is None


def test_fields_used_by_conditions_and_sorts() -> None:
    phone = {"field": "phone", "operation": "exist"}
    condition = {"operation": "and", "sub_conditions": [EAST, phone]}
    assert referenced_fields(condition) == {"region", "phone"}
    assert referenced_fields(None) == set()
    assert sorted_fields([{"field": "limit"}, "junk"]) == {"limit"}


def test_row_filter_is_and_ed_into_the_condition() -> None:
    policy = ObjectTypePolicy("kn", "customer", row_filter=Leaf("region", "==", "华东"))
    combined = with_row_filter({"field": "vip", "operation": "==", "value": True,
                                "value_from": "const"}, policy)
    assert combined == Logical("and", (Leaf("vip", "==", True), Leaf("region", "==", "华东")))
    assert with_row_filter(None, policy) == Leaf("region", "==", "华东")
    assert with_row_filter(EAST, ObjectTypePolicy("kn", "customer")) is EAST


REQUEST = PermissionRequest("/studio/{kn_id}/ot/{ot_id}?tab=perm")


def test_narrowed_guidance_in_chinese_with_a_request_link() -> None:
    policy = ObjectTypePolicy("kn", "customer", property_rules={"phone": "masked"},
                              row_filter=Leaf("region", "==", "华东"))
    guidance = narrowed_guidance(policy, language="zh-CN", name="客户",
                                 hidden={"phone": "masked"}, request=REQUEST)
    assert guidance is not None
    assert guidance["resource"] == {"type": "object_type", "id": "kn/customer", "kn_id": "kn",
                                    "ot_id": "customer", "name": "客户"}
    assert [s["scope"] for s in guidance["shortfalls"]] == ["property_grants", "row_filter"]
    assert "phone 已脱敏" in guidance["message"] and "可能不完整" in guidance["message"]
    assert "等待管理员授权后再重新发起" in guidance["message"]
    url = urlsplit(guidance["request_permission_url"])
    assert url.path == "/studio/kn/ot/customer"
    query = parse_qs(url.query)
    assert query["tab"] == ["perm"] and query["properties"] == ["phone"]
    assert query["source"] == ["agent"] and "客户" in query["reason"][0]


def test_reason_spaces_are_percent_twenty() -> None:
    policy = ObjectTypePolicy("kn", "customer", property_rules={"phone": "masked"})
    guidance = denied_guidance(policy, language="en-US", name="Customer",
                               request=PermissionRequest("/p", base_url="https://studio.example"))
    url = guidance["request_permission_url"]
    assert url.startswith("https://studio.example/p?operations=view_detail&reason=An%20agent%20")
    assert "+" not in url and url.endswith("&source=agent")
    assert guidance["shortfalls"] == [{"scope": "grant", "operations": ["view_detail"]}]
    assert "submit a permission request" in guidance["message"]


def test_no_link_and_no_name_when_the_type_definition_is_not_viewable() -> None:
    policy = ObjectTypePolicy("kn", "customer", readable=False, may_view_definition=False)
    guidance = denied_guidance(policy, language="en-US", name="Customer", request=REQUEST)
    assert "name" not in guidance["resource"]
    assert "request_permission_url" not in guidance
    assert "ask an administrator" in guidance["message"]


def test_no_link_without_a_request_flow_and_nothing_when_unaffected() -> None:
    policy = ObjectTypePolicy("kn", "customer", row_filter=Leaf("region", "==", "华东"))
    guidance = narrowed_guidance(policy, language="zh-CN", name="客户", hidden={}, request=None)
    assert guidance is not None and "request_permission_url" not in guidance
    assert guidance["message"].endswith("请联系管理员授予相应权限。")
    plain = ObjectTypePolicy("kn", "customer")
    unaffected = narrowed_guidance(plain, language="zh-CN", name="客户", hidden={}, request=REQUEST)
    assert unaffected is None
