"""Instance and subgraph queries with object-type permissions, on the demo network."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.events import EventRecord
from clctl.bundle.loader import load_bundle
from clctl.bundle.to_events import bundle_events
from ontology_query.service_layer import permissions, queries
from ontology_query.service_layer.permissions import Caller
from ontology_query.service_layer.projection import OntologyState

ROOT = Path(__file__).resolve().parents[3]
KN = "supply_chain"
DEV, ANALYST, VIEWER = Caller("dev"), Caller("analyst", "zh-CN"), Caller("viewer")


def _state(*grants: ev.ResourceGrant) -> OntologyState:
    """The demo network, plus ``grants``."""
    state = OntologyState()
    now = datetime.now(UTC)
    events = bundle_events(load_bundle(ROOT / "examples" / "supply_chain"))
    network = next(e for e in events if isinstance(e, ev.NetworkUpserted))
    events.append(network.model_copy(
        update={"resource_grants": (*network.resource_grants, *grants)}))
    for n, event in enumerate(events):
        state.apply(EventRecord(event=event, event_id=str(n), occurred_at=now))
    return state


@cache
def demo_state() -> OntologyState:
    """The demo network, plus a grant on shipment without view_detail for ``viewer``."""
    return _state(ev.ResourceGrant(account="viewer", resource_type="object_type",
                                   resource_id="shipment", operations=()))


def rows(ot_id: str) -> list[dict[str, Any]]:
    return [dict(o.properties) for o in demo_state().stores[KN].objects(ot_id).values()]


def instances(caller: Caller, ot_id: str = "customer", **kwargs: Any) -> dict[str, Any]:
    return queries.object_instances(demo_state(), KN, caller, ot_id=ot_id, **kwargs)


def test_dev_sees_everything_without_guidance() -> None:
    page = instances(DEV, limit=10_000, need_total=True)
    assert page["total_count"] == len(rows("customer"))
    assert "permission_guidance" not in page
    first = page["objects"][0]
    assert first["_instance_identity"] == {"customer_id": first["customer_id"]}


def test_analyst_is_masked_and_filtered_with_guidance() -> None:
    page = instances(ANALYST, limit=10_000, need_total=True)
    east = [r for r in rows("customer") if r["region"] == "华东"]
    assert page["total_count"] == len(east) == len(page["objects"])
    assert {o["region"] for o in page["objects"]} == {"华东"}
    assert all(o["contact_phone"] == "***" and o["credit_limit"] is None for o in page["objects"])
    guidance = page["permission_guidance"]
    scopes = [s["scope"] for s in guidance["shortfalls"]]
    assert scopes == ["property_grants", "row_filter"]
    assert guidance["shortfalls"][0]["properties"] == ["contact_phone", "credit_limit"]
    assert "request_permission_url" not in guidance  # no request flow configured here


def test_only_the_requested_properties_are_considered() -> None:
    page = instances(ANALYST, properties=["name"])
    assert set(page["objects"][0]) == {"name", "_object_type_id", "_instance_identity"}
    assert [s["scope"] for s in page["permission_guidance"]["shortfalls"]] == ["row_filter"]


def test_filtering_or_sorting_on_a_hidden_property_is_refused() -> None:
    for kwargs in (
        {"condition": {"field": "credit_limit", "operation": ">", "value": 1,
                       "value_from": "const"}},
        {"sort": [{"field": "contact_phone"}]},
    ):  # fmt: skip
        with pytest.raises(ApiError) as refused:
            instances(ANALYST, **kwargs)
        assert refused.value.status == 403
        assert refused.value.code == permissions.PROPERTY_DENIED_CODE
        assert "permission_guidance" in refused.value.extra


def test_a_type_without_the_read_operation_is_refused_with_guidance() -> None:
    with pytest.raises(ApiError) as refused:
        instances(VIEWER, "shipment")
    assert (refused.value.status, refused.value.code) == (403, permissions.DENIED_CODE)
    guidance = refused.value.extra["permission_guidance"]
    assert guidance["shortfalls"] == [{"scope": "grant", "operations": ["view_detail"]}]
    assert guidance["resource"]["name"] == "运单"


def test_validation_comes_before_permissions_and_names_the_callers_paths() -> None:
    with pytest.raises(ApiError) as refused:
        instances(ANALYST, condition={"field": "city", "operation": ">", "value": "x",
                                      "value_from": "const"})
    assert refused.value.status == 400
    assert refused.value.details["path"] == "condition"
    assert refused.value.details["field"] == "city"


def test_subgraph_nodes_are_filtered_and_masked() -> None:
    path = {"object_types": [{"id": "sales_order", "limit": 200}, {"id": "customer", "limit": 200}],
            "relation_types": [{"relation_type_id": "rel_customer_so"}]}
    body = queries.instance_subgraph(demo_state(), KN, ANALYST, [path])
    customers = [o for o in body["entries"][0]["objects"].values()
                 if o["_object_type_id"] == "customer"]
    assert customers and {c["region"] for c in customers} == {"华东"}
    assert {c["contact_phone"] for c in customers} == {"***"}
    assert [g["resource"]["ot_id"] for g in body["permission_guidance"]] == ["customer"]
    with pytest.raises(ApiError):
        queries.instance_subgraph(demo_state(), KN, VIEWER, [{
            "object_types": [{"id": "sales_order"}, {"id": "shipment"}],
            "relation_types": [{"relation_type_id": "rel_so_shipment"}]}])


def test_explore_leaves_no_trace_of_hidden_objects() -> None:
    body = queries.explore(demo_state(), KN, VIEWER, source_object_type_id="sales_order",
                           direction="forward", path_length=1, limit=50)
    types = {o["_object_type_id"] for o in body["objects"].values()}
    assert "shipment" not in types and "warehouse" in types
    assert all(e["target_object_type_id"] != "shipment"
               for p in body["relation_paths"] for e in p)
    full = queries.explore(demo_state(), KN, DEV, source_object_type_id="sales_order",
                           direction="forward", path_length=1, limit=50)
    assert "shipment" in {o["_object_type_id"] for o in full["objects"].values()}
    assert body["total_count"] == full["total_count"] and body["overall_ms"] >= 0
    guidance = body["permission_guidance"]
    assert [g["resource"]["ot_id"] for g in guidance] == ["shipment"]
    assert guidance[0]["shortfalls"] == [{"scope": "grant", "operations": ["view_detail"]}]
    assert "leaves them out" in guidance[0]["message"]
    assert "permission_guidance" not in full


def test_explore_refuses_offset_with_search_after() -> None:
    with pytest.raises(ApiError) as refused:
        queries.explore(demo_state(), KN, DEV, source_object_type_id="supplier",
                        direction="forward", path_length=1, offset=0, search_after=["S-0001"])
    assert refused.value.code.endswith("InvalidParameter.OffsetAndSearchAfter")


def test_a_row_filter_that_does_not_fit_its_type_refuses_the_type_and_hides_it_elsewhere() -> None:
    broken = ev.ResourceGrant(
        account="broken", resource_type="object_type", resource_id="shipment",
        operations=("view_detail",),
        row_filter={"field": "no_such_field", "operation": "==", "value": "x",
                    "value_from": "const"},
    )  # fmt: skip
    state, caller = _state(broken), Caller("broken")
    with pytest.raises(ApiError) as refused:
        queries.object_instances(state, KN, caller, ot_id="shipment")
    assert (refused.value.status, refused.value.code) == (500, permissions.INVALID_ROW_FILTER_CODE)
    body = queries.explore(state, KN, caller, source_object_type_id="sales_order",
                           direction="forward", path_length=1, limit=50)
    types = {o["_object_type_id"] for o in body["objects"].values()}
    assert "shipment" not in types and "warehouse" in types  # the filter admits nothing
