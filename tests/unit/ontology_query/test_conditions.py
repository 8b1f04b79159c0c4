"""Operator semantics and index planning of condition trees."""

from __future__ import annotations

from typing import Any

import pytest

from ontology_query.domain.conditions import bind_condition
from ontology_query.domain.instances import query_object_instance
from ontology_query.domain.store import OntologyStore


def leaf(field: str, op: str, value: Any = None) -> dict[str, Any]:
    cond: dict[str, Any] = {"field": field, "operation": op}
    if value is not None:
        cond.update(value=value, value_from="const")
    return cond


def matching(store: OntologyStore, condition: dict[str, Any]) -> list[str]:
    page = query_object_instance(store, "user", condition=condition, limit=100)
    return [o.id for o in page.objects]


CASES: list[tuple[dict[str, Any], list[str]]] = [
    (leaf("city", "==", "London"), ["u1", "u2"]),
    (leaf("city", "!=", "London"), ["u3", "u4", "u5"]),
    (leaf("age", ">", 41), ["u3", "u5"]),
    (leaf("age", "<", 36), ["u4"]),
    (leaf("score", ">=", 9.5), ["u1", "u3"]),
    (leaf("score", "<=", 8), ["u2"]),
    (leaf("age", "==", "41"), ["u2"]),  # integer given as text is coerced
    (leaf("city", "in", ["Austin", "北京"]), ["u4", "u5"]),
    (leaf("city", "not_in", ["London"]), ["u3", "u4", "u5"]),
    (leaf("city", "in", []), []),
    (leaf("age", "range", [36, 72]), ["u1", "u2", "u5"]),  # both ends inclusive
    (leaf("score", "out_range", [8.5, 10]), ["u2", "u4", "u5"]),  # missing score is out
    (leaf("name", "like", "A%"), ["u1", "u2"]),
    (leaf("name", "like", "_lan%"), ["u2"]),
    (leaf("name", "like", "a%"), []),  # case-sensitive
    (leaf("name", "not_like", "%r%"), ["u1", "u4"]),
    (leaf("city", "like", "New_York"), ["u3"]),
    (leaf("name", "regex", "^[AG]"), ["u1", "u2", "u3"]),
    (leaf("name", "regex", "stra$"), ["u5"]),
    (leaf("name", "match", "TURING alan"), ["u2"]),
    (leaf("name", "match", "雷 李"), ["u4"]),
    (leaf("name", "match", "ada turing"), []),
    (leaf("vip", "exist"), ["u1", "u2", "u5"]),
    (leaf("vip", "not_exist"), ["u3", "u4"]),
    (leaf("score", "exist"), ["u1", "u2", "u3"]),  # explicit null is absent
    (leaf("vip", "==", True), ["u1", "u5"]),
    (leaf("vip", "==", "false"), ["u2"]),
    (leaf("joined", ">", "2024-02-01T00:00:00Z"), ["u2", "u3"]),
    (leaf("joined", "<", 1706745600000), ["u1"]),  # epoch milliseconds
    (leaf("joined", "==", "2024-03-01T01:00:00+01:00"), ["u2"]),  # same instant
    ({"field": "vip", "operation": "exist", "value": None, "value_from": "const"},
     ["u1", "u2", "u5"]),
    ({"operation": "and", "sub_conditions": [leaf("city", "==", "London"), leaf("age", ">", 40)]},
     ["u2"]),
    ({"operation": "or", "sub_conditions": [leaf("city", "==", "Austin"), leaf("age", "<", 31)]},
     ["u4", "u5"]),
    ({"operation": "and", "sub_conditions": [
        leaf("city", "in", ["London", "Austin"]),
        {"operation": "or", "sub_conditions": [leaf("vip", "==", True), leaf("age", ">", 40)]}]},
     ["u1", "u2", "u5"]),
    ({}, ["u1", "u2", "u3", "u4", "u5"]),
]  # fmt: skip


@pytest.mark.parametrize(("condition", "expected"), CASES, ids=[repr(c[0])[:60] for c in CASES])
def test_operator(shop: OntologyStore, condition: dict[str, Any], expected: list[str]) -> None:
    assert matching(shop, condition) == expected


def plan(shop: OntologyStore, condition: dict[str, Any]) -> set[str] | None:
    bound = bind_condition(condition, shop.object_types()["user"])
    assert bound is not None
    return bound.candidates(lambda f, v: shop.indexed_lookup("user", f, v))


def test_indexed_equality_uses_the_index(shop: OntologyStore) -> None:
    assert plan(shop, leaf("city", "==", "London")) == {"u1", "u2"}
    assert plan(shop, leaf("city", "in", ["Austin", "nowhere"])) == {"u5"}


def test_and_intersects_indexed_leaves_and_ignores_the_rest(shop: OntologyStore) -> None:
    cond = {
        "operation": "and",
        "sub_conditions": [
            leaf("city", "==", "London"),
            leaf("vip", "==", True),
            leaf("age", ">", 1),
        ],
    }
    assert plan(shop, cond) == {"u1"}


def test_unindexed_or_negative_trees_need_a_scan(shop: OntologyStore) -> None:
    assert plan(shop, leaf("name", "==", "Ada Lovelace")) is None
    assert plan(shop, leaf("city", "!=", "London")) is None
    either = {"operation": "or", "sub_conditions": [leaf("city", "==", "x"), leaf("age", ">", 1)]}
    assert plan(shop, either) is None
    both = {
        "operation": "or",
        "sub_conditions": [leaf("city", "==", "Austin"), leaf("vip", "==", False)],
    }
    assert plan(shop, both) == {"u2", "u5"}
