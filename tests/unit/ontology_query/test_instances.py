"""query_object_instance: ordering, paging by offset and by cursor, totals, identity."""

from __future__ import annotations

from typing import Any

import pytest

from ontology_query.domain.instances import query_object_instance
from ontology_query.domain.model import ObjectInstance
from ontology_query.domain.store import OntologyStore


def ids_of(store: OntologyStore, **kwargs: Any) -> list[str]:
    return [o.id for o in query_object_instance(store, "user", **kwargs).objects]


def test_default_page_is_ten_by_id_with_identity(shop: OntologyStore) -> None:
    page = query_object_instance(shop, "user")
    assert [o.id for o in page.objects] == ["u1", "u2", "u3", "u4", "u5"]
    assert page.objects[0].identity == {"uid": "u1"}
    assert page.objects[0].to_json()["_instance_identity"] == {"uid": "u1"}
    assert page.cursor is None and page.total_count is None


def test_sort_with_id_tie_break_and_missing_values_last(shop: OntologyStore) -> None:
    assert ids_of(shop, sort=[{"field": "city"}]) == ["u5", "u1", "u2", "u3", "u4"]
    assert ids_of(shop, sort=[{"field": "city", "direction": "desc"}]) == [
        "u4", "u3", "u1", "u2", "u5",
    ]  # fmt: skip
    assert ids_of(shop, sort=[{"field": "score", "direction": "desc"}]) == [
        "u3", "u1", "u2", "u4", "u5",
    ]  # fmt: skip
    assert ids_of(shop, sort=[{"field": "score"}]) == ["u2", "u1", "u3", "u4", "u5"]
    assert ids_of(shop, sort=[{"field": "vip", "direction": "desc"}, {"field": "age"}]) == [
        "u1", "u5", "u2", "u4", "u3",
    ]  # fmt: skip


def test_offset_and_total(shop: OntologyStore) -> None:
    page = query_object_instance(shop, "user", offset=3, limit=1, need_total=True)
    assert [o.id for o in page.objects] == ["u4"] and page.total_count == 5
    filtered = query_object_instance(
        shop,
        "user",
        condition={"field": "city", "operation": "==", "value": "London", "value_from": "const"},
        need_total=True,
        offset=5,
    )
    assert filtered.objects == () and filtered.total_count == 2


QUERIES: list[dict[str, Any]] = [
    {},
    {"sort": [{"field": "score", "direction": "desc"}]},
    {"sort": [{"field": "joined"}, {"field": "city", "direction": "desc"}]},
    {"condition": {"field": "name", "operation": "like", "value": "%a%", "value_from": "const"}},
    {
        "condition": {"field": "city", "operation": "in", "value": ["London", "北京", "Austin"],
                      "value_from": "const"},
        "sort": [{"field": "age", "direction": "desc"}],
        "need_total": True,
    },
]  # fmt: skip


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("size", [1, 2, 3])
def test_cursor_pages_concatenate_to_the_full_result(
    shop: OntologyStore, query: dict[str, Any], size: int
) -> None:
    shop.upsert_object(ObjectInstance("user", "u0", {"uid": "u0", "name": "Zed", "city": "London"}))
    full = ids_of(shop, limit=100, **query)
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = query_object_instance(shop, "user", limit=size, cursor=cursor, **query)
        seen.extend(o.id for o in page.objects)
        cursor = page.cursor
        if cursor is None:
            break
    assert seen == full
    by_offset = [
        oid
        for start in range(0, len(full), size)
        for oid in ids_of(shop, limit=size, offset=start, **query)
    ]
    assert by_offset == full
