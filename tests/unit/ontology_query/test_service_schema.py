"""Schema views and search_schema over the demo network (state built from its bundle)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from bkn_common.contracts.errors import ApiError
from bkn_common.contracts.events import EventRecord
from clctl.bundle.loader import load_bundle
from clctl.bundle.to_events import bundle_events
from ontology_query.service_layer import schema_views
from ontology_query.service_layer.projection import OntologyState
from ontology_query.service_layer.schema_search import tokenize

ROOT = Path(__file__).resolve().parents[3]
ALL_KINDS = frozenset({"object_type", "relation_type", "action_type", "metric"})


@cache
def demo_state() -> OntologyState:
    state = OntologyState()
    now = datetime.now(UTC)
    for n, event in enumerate(bundle_events(load_bundle(ROOT / "examples" / "supply_chain"))):
        state.apply(EventRecord(event=event, event_id=str(n), occurred_at=now))
    return state


def search(query: str, **kwargs: object) -> dict[str, object]:
    options: dict[str, object] = {"kinds": ALL_KINDS, "concept_groups": None, "max_concepts": 10}
    options.update(kwargs)
    return schema_views.search_schema(demo_state(), "supply_chain", query, **options)  # type: ignore[arg-type]


def ids(result: dict[str, object], key: str) -> list[str]:
    return [c.get("id") or c["name"] for c in result[key]]  # type: ignore[attr-defined, index, union-attr]


def test_tokenize_cjk_bigrams_and_ascii_words() -> None:
    assert tokenize("采购订单") == ["采", "购", "订", "单", "采购", "购订", "订单"]
    assert tokenize("rel_supplier_po") == ["rel", "supplier", "po"]
    assert tokenize("supplierScore 2") == ["supplier", "score", "supplierscore", "2"]


def test_chinese_query_ranks_the_named_type_first() -> None:
    result = search("采购订单")
    assert ids(result, "object_types")[0] == "purchase_order"
    assert search("客户的联系电话")["object_types"][0]["id"] == "customer"  # type: ignore[index]


def test_english_and_property_names_match_too() -> None:
    assert ids(search("warehouse"), "object_types")[0] == "warehouse"
    assert "shipment" in ids(search("carrier"), "object_types")


def test_scope_flags_and_concept_groups_narrow() -> None:
    only_relations = search("订单", kinds=frozenset({"relation_type"}))
    assert set(only_relations) == {"relation_types", "total_matched"}
    sales = search("订单", concept_groups=["sales"])
    assert "purchase_order" not in ids(sales, "object_types")
    assert "sales_order" in ids(sales, "object_types")


def test_metrics_are_logic_properties_of_kind_metric() -> None:
    result = search("采购总额", kinds=frozenset({"metric"}))
    assert result["metrics"][0]["name"] == "purchase_amount"  # type: ignore[index]
    names = {m["name"] for m in search("评分", kinds=frozenset({"metric"}))["metrics"]}  # type: ignore[attr-defined]
    assert "supplier_score" not in names  # an operator, not a metric


def test_max_concepts_caps_all_kinds_together() -> None:
    result = search("订单", max_concepts=3)
    kinds = ("object_types", "relation_types", "action_types", "metrics")
    shown = sum(len(result[k]) for k in kinds)  # type: ignore[arg-type]
    assert shown == 3 and result["total_matched"] > 3  # type: ignore[operator]


def test_no_scope_is_refused_and_schema_only() -> None:
    with pytest.raises(ApiError) as refused:
        search("订单", kinds=frozenset())
    assert refused.value.status == 400
    assert refused.value.code == schema_views.SEARCH_SCOPE_CODE
    text = str(search("供应商"))
    assert "S-0001" not in text  # never instances


def test_types_by_id_with_name_fallback() -> None:
    result = schema_views.get_object_types(demo_state(), "supply_chain", ["客户", "supplier", "x"])
    assert [t["id"] for t in result["object_types"]] == ["customer", "supplier"]
    assert result["missing"] == ["x"]
    rels = schema_views.get_relation_types(demo_state(), "supply_chain", ["母公司"])
    assert rels["relation_types"][0]["id"] == "rel_supplier_parent"


def test_detail_levels_and_unknown_mounted_counts() -> None:
    state = demo_state()
    summary = schema_views.kn_detail(state, "supply_chain", "summary")
    assert set(summary["object_types"][0]) == {"id", "name", "description"}
    assert summary["mounted_capabilities"] == {"function": 9, "mcp_tool": 2, "skill": 2}
    full = schema_views.kn_detail(state, "supply_chain", "full")
    assert "condition_operations" in full["object_types"][0]["properties"][0]
    mounted = state.mounted.pop("supply_chain")
    try:  # no bindings seen yet: unknown, so nothing is said (never 0)
        assert "mounted_capabilities" not in schema_views.kn_detail(state, "supply_chain", "full")
    finally:
        state.mounted["supply_chain"] = mounted


def test_networks_listed_only_with_view_detail() -> None:
    state = demo_state()
    assert schema_views.list_networks(state, "dev", None, 20, 0)["total_count"] == 1
    assert schema_views.list_networks(state, "subonly", None, 20, 0)["total_count"] == 0
    assert schema_views.list_networks(state, "dev", "供应", 20, 0)["total_count"] == 1
    assert schema_views.list_networks(state, "dev", "nothing", 20, 0)["total_count"] == 0
