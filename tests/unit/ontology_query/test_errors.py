"""Every refusal of the ontology-query domain: code, structured details, both languages."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from ontology_query.domain.errors import DomainError, QueryErrorCode, TypePathError, TypePathMismatch
from ontology_query.domain.explore import explore_subgraph
from ontology_query.domain.instances import query_object_instance
from ontology_query.domain.store import OntologyStore
from ontology_query.domain.subgraph import query_instance_subgraph

Call = Callable[[OntologyStore], object]


def leaf(field: str, op: str, value: Any = None, **extra: Any) -> dict[str, Any]:
    cond: dict[str, Any] = {"field": field, "operation": op, **extra}
    if value is not None:
        cond.update(value=value, value_from="const")
    return cond


def users(**kwargs: Any) -> Call:
    return lambda store: query_object_instance(store, "user", **kwargs)


def explore(**kwargs: Any) -> Call:
    args: dict[str, Any] = {
        "source_object_type_id": "user",
        "direction": "forward",
        "path_length": 1,
        **kwargs,
    }
    return lambda store: explore_subgraph(store, **args)


def template(nodes: list[Any], edges: list[Any], **extra: Any) -> Call:
    path = {"object_types": nodes, "relation_types": edges, **extra}
    return lambda store: query_instance_subgraph(store, [path])


def ids(*names: str) -> list[dict[str, Any]]:
    return [{"id": n} for n in names]


def other_query_cursor(store: OntologyStore) -> str:
    cursor = query_object_instance(store, "user", limit=1).cursor
    assert cursor is not None
    return cursor


CASES: list[tuple[str, Call, QueryErrorCode, dict[str, Any]]] = [
    # -- conditions: shape --------------------------------------------------------------
    ("condition not an object", users(condition="city == London"), QueryErrorCode.INVALID_CONDITION,
     {"path": "condition"}),
    ("leaf without field", users(condition={"operation": "=="}), QueryErrorCode.INVALID_CONDITION,
     {"path": "condition"}),
    ("and without sub_conditions", users(condition={"operation": "and", "sub_conditions": []}),
     QueryErrorCode.INVALID_CONDITION, {"operation": "and"}),
    ("unknown operation", users(condition={"field": "city", "operation": "equals", "value": "x",
                                           "value_from": "const"}),
     QueryErrorCode.INVALID_CONDITION, {"operation": "equals"}),
    ("value without value_from", users(condition={"field": "city", "operation": "==",
                                                  "value": "London"}),
     QueryErrorCode.INVALID_CONDITION, {"operation": "=="}),
    ("value_from without value", users(condition={"field": "city", "operation": "==",
                                                  "value_from": "const"}),
     QueryErrorCode.INVALID_CONDITION, {"operation": "=="}),
    ("value_from not const", users(condition={"field": "city", "operation": "==", "value": "x",
                                              "value_from": "field"}),
     QueryErrorCode.INVALID_CONDITION, {"value_from": "field"}),
    ("exist with a value", users(condition=leaf("city", "exist", "x")),
     QueryErrorCode.INVALID_CONDITION, {"operation": "exist"}),
    ("in with a scalar", users(condition=leaf("city", "in", "London")),
     QueryErrorCode.INVALID_CONDITION, {"operation": "in"}),
    ("range with three bounds", users(condition=leaf("age", "range", [1, 2, 3])),
     QueryErrorCode.INVALID_CONDITION, {"operation": "range"}),
    ("== with null", users(condition={"field": "city", "operation": "==", "value": None,
                                      "value_from": "const"}),
     QueryErrorCode.INVALID_CONDITION, {"operation": "=="}),
    ("like with a number", users(condition=leaf("name", "like", 5)),
     QueryErrorCode.INVALID_CONDITION, {"operation": "like"}),
    ("value of the wrong type", users(condition=leaf("age", "==", "old")),
     QueryErrorCode.INVALID_CONDITION, {"field": "age", "type": "integer", "value": "old"}),
    ("regex that does not compile", users(condition=leaf("name", "regex", "(")),
     QueryErrorCode.INVALID_CONDITION, {"value": "("}),
    ("nested error path", users(condition={"operation": "or", "sub_conditions": [
        leaf("city", "==", "x"), {"operation": "and", "sub_conditions": [{"field": "city"}]}]}),
     QueryErrorCode.INVALID_CONDITION, {"path": "condition.sub_conditions[1].sub_conditions[0]"}),
    # -- conditions: schema -------------------------------------------------------------
    ("operator not allowed", users(condition=leaf("age", "like", "3%")),
     QueryErrorCode.OPERATOR_NOT_ALLOWED,
     {"field": "age", "operation": "like", "allowed": ["==", ">", "<", "range"]}),
    ("unknown field", users(condition=leaf("nickname", "==", "x")), QueryErrorCode.UNKNOWN_FIELD,
     {"field": "nickname", "object_type_id": "user"}),
    ("unknown sort field", users(sort=[{"field": "height"}]), QueryErrorCode.UNKNOWN_FIELD,
     {"field": "height", "path": "sort[0]"}),
    # -- sort, limit, offset, cursor ----------------------------------------------------
    ("null sort item", users(sort=[None]), QueryErrorCode.INVALID_SORT, {"index": 0}),
    ("bad sort direction", users(sort=[{"field": "age", "direction": "up"}]),
     QueryErrorCode.INVALID_SORT, {"field": "age", "direction": "up"}),
    ("limit 0", users(limit=0), QueryErrorCode.INVALID_LIMIT, {"value": 0, "min": 1, "max": 10000}),
    ("limit 10001", users(limit=10001), QueryErrorCode.INVALID_LIMIT, {"value": 10001}),
    ("limit bool", users(limit=True), QueryErrorCode.INVALID_LIMIT, {"value": True}),
    ("explore limit", explore(limit=20000), QueryErrorCode.INVALID_LIMIT, {"value": 20000}),
    ("node limit", template([{"id": "order", "limit": 0}, {"id": "user"}],
                            [{"relation_type_id": "rel_order_user"}]),
     QueryErrorCode.INVALID_LIMIT, {"value": 0, "path_index": 1, "node_index": 0}),
    ("negative offset", users(offset=-1), QueryErrorCode.INVALID_OFFSET, {"value": -1}),
    ("offset with cursor", lambda s: query_object_instance(
        s, "user", offset=2, cursor=other_query_cursor(s)),
     QueryErrorCode.OFFSET_AND_SEARCH_AFTER, {"cursor_name": "cursor"}),
    ("offset with search_after", explore(offset=1, search_after=["u1"]),
     QueryErrorCode.OFFSET_AND_SEARCH_AFTER, {"cursor_name": "search_after"}),
    ("garbage cursor", users(cursor="!!not base64!!"), QueryErrorCode.INVALID_CURSOR,
     {"cursor_name": "cursor"}),
    ("cursor of another query", lambda s: query_object_instance(
        s, "user", sort=[{"field": "age"}], cursor=other_query_cursor(s)),
     QueryErrorCode.INVALID_CURSOR, {"cursor_name": "cursor"}),
    ("search_after of wrong length", explore(search_after=["u1", "u2"]),
     QueryErrorCode.INVALID_CURSOR, {"cursor_name": "search_after"}),
    ("search_after of wrong type", explore(sort=[{"field": "age"}], search_after=["x", "u1"]),
     QueryErrorCode.INVALID_CURSOR, {"cursor_name": "search_after"}),
    # -- unknown types ------------------------------------------------------------------
    ("unknown object type", lambda s: query_object_instance(s, "invoice"),
     QueryErrorCode.UNKNOWN_OBJECT_TYPE, {"object_type_id": "invoice"}),
    ("unknown start type", explore(source_object_type_id="invoice"),
     QueryErrorCode.UNKNOWN_OBJECT_TYPE, {"object_type_id": "invoice"}),
    ("unknown node type", template(ids("order", "invoice"), [{"relation_type_id": "x"}]),
     QueryErrorCode.UNKNOWN_OBJECT_TYPE, {"object_type_id": "invoice", "node_index": 1}),
    ("unknown relation type", template(ids("order", "user"), [{"relation_type_id": "rel_x"}]),
     QueryErrorCode.UNKNOWN_RELATION_TYPE, {"relation_type_id": "rel_x", "edge_index": 1}),
    # -- path templates -----------------------------------------------------------------
    ("too few relation types", template(ids("order", "user", "order"),
                                        [{"relation_type_id": "rel_order_user"}]),
     QueryErrorCode.INVALID_TYPE_PATH, {"object_type_count": 3, "relation_type_count": 1}),
    ("no edge at all", template(ids("order"), []), QueryErrorCode.INVALID_TYPE_PATH,
     {"object_type_count": 1, "relation_type_count": 0}),
    ("filled endpoints reversed", template(
        ids("order", "user", "order"),
        [{"relation_type_id": "rel_order_user"},
         {"relation_type_id": "rel_order_user", "source_object_type_id": "order",
          "target_object_type_id": "user"}]),
     QueryErrorCode.INVALID_TYPE_PATH,
     {"edge_index": 2, "relation_type_id": "rel_order_user", "required": ["user", "order"],
      "given": ["order", "user"], "given_kind": "filled"}),
    ("nodes not joined by the relation type", template(
        ids("product", "user"), [{"relation_type_id": "rel_order_user"}]),
     QueryErrorCode.INVALID_TYPE_PATH,
     {"edge_index": 1, "required": ["product", "user"], "given": ["order", "user"],
      "given_kind": "definition"}),
    ("direction contradicts the nodes", template(
        ids("order", "user"), [{"relation_type_id": "rel_order_user", "direction": "backward"}]),
     QueryErrorCode.INVALID_TYPE_PATH,
     {"edge_index": 1, "required": ["order", "user"], "given": ["user", "order"],
      "given_kind": "direction"}),
    ("self-referencing, wrong filled target", template(
        ids("user", "user"), [{"relation_type_id": "follows", "target_object_type_id": "order"}]),
     QueryErrorCode.INVALID_TYPE_PATH, {"required": ["user", "user"], "given": ["user", "order"]}),
    ("bad edge direction", template(ids("user", "user"),
                                    [{"relation_type_id": "follows", "direction": "up"}]),
     QueryErrorCode.INVALID_DIRECTION, {"value": "up"}),
    ("node condition error names the node", template(
        [{"id": "order"}, {"id": "user", "condition": leaf("age", "like", "x")}],
        [{"relation_type_id": "rel_order_user"}]),
     QueryErrorCode.OPERATOR_NOT_ALLOWED, {"node_index": 1, "path_index": 1}),
    # -- explore ------------------------------------------------------------------------
    ("path_length 0", explore(path_length=0), QueryErrorCode.INVALID_PATH_LENGTH,
     {"value": 0, "min": 1, "max": 3}),
    ("path_length 4", explore(path_length=4), QueryErrorCode.INVALID_PATH_LENGTH, {"value": 4}),
    ("path_length missing", explore(path_length=None), QueryErrorCode.INVALID_PATH_LENGTH,
     {"value": None}),
    ("path_length as text", explore(path_length="2"), QueryErrorCode.INVALID_PATH_LENGTH,
     {"value": "2"}),
    ("explore direction", explore(direction="sideways"), QueryErrorCode.INVALID_DIRECTION,
     {"value": "sideways", "allowed": ["forward", "backward", "bidirectional"]}),
    ("explore condition", explore(condition=leaf("age", "regex", "3")),
     QueryErrorCode.OPERATOR_NOT_ALLOWED, {"field": "age", "operation": "regex"}),
]  # fmt: skip

_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@pytest.mark.parametrize(
    ("call", "code", "details"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_refusal(shop: OntologyStore, call: Call, code: QueryErrorCode, details: dict[str, Any]) -> None:
    with pytest.raises(DomainError) as caught:
        call(shop)
    error = caught.value
    assert error.code == code
    assert {k: error.details.get(k) for k in details} == details
    for language in ("zh-CN", "en-US"):
        message = error.message(language)
        assert message and not _PLACEHOLDER.search(message), message


def test_every_code_is_exercised() -> None:
    assert {case[2] for case in CASES} == set(QueryErrorCode)


def test_type_path_message_matches_the_spec_example(shop: OntologyStore) -> None:
    call = template(
        ids("order", "user", "order"),
        [
            {"relation_type_id": "rel_order_user"},
            {
                "relation_type_id": "rel_order_user",
                "source_object_type_id": "order",
                "target_object_type_id": "user",
            },
        ],
    )
    with pytest.raises(TypePathError) as caught:
        call(shop)
    assert caught.value.mismatch == TypePathMismatch(
        2, "rel_order_user", ("user", "order"), ("order", "user"), "filled", 1
    )
    assert caught.value.message("zh-CN") == (
        "第 2 条边 rel_order_user 与路径节点不一致：路径要求 user → order，当前填写 order → user"
    )
    assert caught.value.message("en-US") == (
        "edge 2 rel_order_user does not match the path nodes: "
        "the path requires user → order, given order → user"
    )
    assert str(caught.value).startswith("OntologyQuery.KnowledgeNetwork.InvalidParameter.TypePath:")


def test_invalid_template_fails_the_whole_request(shop: OntologyStore) -> None:
    good = {
        "object_types": ids("order", "user"),
        "relation_types": [{"relation_type_id": "rel_order_user"}],
    }
    bad = {
        "object_types": ids("user", "user"),
        "relation_types": [{"relation_type_id": "rel_order_user"}],
    }
    with pytest.raises(DomainError) as caught:
        query_instance_subgraph(shop, [good, bad])
    assert caught.value.details["path_index"] == 2
