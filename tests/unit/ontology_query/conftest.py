"""A small shop network shared by the ontology-query domain tests.

user  ──follows──▶ user        (self-referencing)
order ──rel_order_user──▶ user
order ──rel_order_product──▶ product
"""

from __future__ import annotations

import pytest

from ontology_query.domain.model import DataProperty, ObjectInstance, ObjectType, RelationInstance, RelationType
from ontology_query.domain.store import OntologyStore

USERS = [
    {"uid": "u1", "name": "Ada Lovelace", "city": "London", "age": 36, "score": 9.5, "vip": True,
     "joined": "2024-01-05T10:00:00Z"},
    {"uid": "u2", "name": "Alan Turing", "city": "London", "age": 41, "score": 8.0, "vip": False,
     "joined": "2024-03-01T00:00:00+00:00"},
    {"uid": "u3", "name": "Grace Hopper", "city": "New York", "age": 85, "score": 9.9,
     "joined": 1714521600000},
    {"uid": "u4", "name": "李 雷 工程师", "city": "北京", "age": 30, "score": None},
    {"uid": "u5", "name": "Edsger Dijkstra", "city": "Austin", "age": 72, "vip": True},
]  # fmt: skip
ORDERS = [
    ("o1", 120.0, "paid", "u1", ["p1", "p2"]),
    ("o2", 80.5, "new", "u1", ["p2"]),
    ("o3", 300.0, "paid", "u2", ["p3"]),
    ("o4", 15.0, "shipped", "u3", []),
]
FOLLOWS = [("u1", "u2"), ("u2", "u3"), ("u3", "u1")]


def user_type() -> ObjectType:
    return ObjectType(
        id="user",
        name="User",
        primary_keys=("uid",),
        display_key="name",
        properties=(
            DataProperty(name="uid", indexed=True),
            DataProperty(name="name"),
            DataProperty(name="city", indexed=True),
            DataProperty(
                name="age", type="integer", condition_operations=("==", ">", "<", "range")
            ),
            DataProperty(name="score", type="number"),
            DataProperty(name="vip", type="boolean", indexed=True),
            DataProperty(name="joined", type="datetime"),
        ),
        concept_groups=("sales",),
    )


def build_shop() -> OntologyStore:
    store = OntologyStore("kn_shop")
    store.upsert_object_type(user_type())
    store.upsert_object_type(
        ObjectType(
            id="order",
            name="Order",
            primary_keys=("oid",),
            properties=(
                DataProperty(name="oid"),
                DataProperty(name="amount", type="number"),
                DataProperty(name="status", indexed=True),
            ),
            concept_groups=("sales",),
        )
    )
    store.upsert_object_type(
        ObjectType(
            id="product",
            name="Product",
            primary_keys=("pid",),
            properties=(DataProperty(name="pid"), DataProperty(name="title")),
            concept_groups=("catalog",),
        )
    )
    for rt_id, source, target, groups in (
        ("rel_order_user", "order", "user", ("sales",)),
        ("rel_order_product", "order", "product", ("catalog",)),
        ("follows", "user", "user", ("sales",)),
    ):
        store.upsert_relation_type(
            RelationType(
                id=rt_id,
                name=rt_id,
                source_object_type_id=source,
                target_object_type_id=target,
                concept_groups=groups,
            )
        )
    for user in USERS:
        props = {k: v for k, v in user.items() if v is not None or k == "score"}
        store.upsert_object(ObjectInstance("user", str(user["uid"]), props))
    for pid in ("p1", "p2", "p3", "p9"):
        store.upsert_object(ObjectInstance("product", pid, {"pid": pid, "title": f"item {pid}"}))
    for oid, amount, status, uid, products in ORDERS:
        store.upsert_object(
            ObjectInstance("order", oid, {"oid": oid, "amount": amount, "status": status})
        )
        store.upsert_relation(RelationInstance("rel_order_user", oid, uid))
        for pid in products:
            store.upsert_relation(RelationInstance("rel_order_product", oid, pid))
    for a, b in FOLLOWS:
        store.upsert_relation(RelationInstance("follows", a, b))
    return store


@pytest.fixture
def shop() -> OntologyStore:
    return build_shop()
