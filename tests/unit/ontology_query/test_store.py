"""The in-memory store: idempotent upserts, removals, indexes, out-of-order schema."""

from __future__ import annotations

import copy

from ontology_query.domain.model import DataProperty, ObjectInstance, ObjectType, RelationInstance
from ontology_query.domain.store import OntologyStore


def snapshot(store: OntologyStore) -> dict[str, object]:
    state = copy.deepcopy(vars(store))
    state["_sorted_ids"] = {}  # a cache, not state
    return state


def test_applying_the_same_upserts_twice_changes_nothing(shop: OntologyStore) -> None:
    before = snapshot(shop)
    shop.upsert_object(
        ObjectInstance("order", "o1", {"oid": "o1", "amount": 120.0, "status": "paid"})
    )
    shop.upsert_relation(RelationInstance("rel_order_user", "o1", "u1"))
    shop.upsert_relation(RelationInstance("follows", "u1", "u2"))
    shop.upsert_object_type(shop.object_types()["user"])
    assert snapshot(shop) == before
    assert shop.neighbours("rel_order_user", "u1", forward=False) == ["o1", "o2"]


def test_replacing_an_instance_moves_it_between_index_buckets(shop: OntologyStore) -> None:
    shop.upsert_object(
        ObjectInstance("order", "o2", {"oid": "o2", "amount": 1.0, "status": "paid"})
    )
    assert shop.indexed_lookup("order", "status", ["new"]) == set()
    assert shop.indexed_lookup("order", "status", ["paid"]) == {"o1", "o2", "o3"}
    shop.remove_object("order", "o2")
    shop.remove_object("order", "o2")
    assert shop.indexed_lookup("order", "status", ["paid"]) == {"o1", "o3"}
    assert shop.get_object("order", "o2") is None


def test_index_keys_are_canonical_values(shop: OntologyStore) -> None:
    shop.upsert_object(ObjectInstance("user", "u9", {"uid": "u9", "vip": "true"}))
    assert shop.indexed_lookup("user", "vip", [True]) == {"u1", "u5", "u9"}
    assert shop.indexed_lookup("user", "name", ["Ada Lovelace"]) is None  # not indexed


def test_removing_relations_is_idempotent(shop: OntologyStore) -> None:
    link = RelationInstance("follows", "u1", "u2")
    shop.remove_relation(link)
    shop.remove_relation(link)
    assert not shop.has_relation(link)
    assert shop.neighbours("follows", "u1", forward=True) == ()
    assert shop.neighbours("follows", "u2", forward=False) == ()
    assert shop.counts()["relations"] == 10


def test_instances_before_their_type_are_indexed_when_it_arrives() -> None:
    store = OntologyStore()
    store.upsert_object(ObjectInstance("city", "c1", {"code": "PAR"}))
    assert store.objects("city") == {}
    store.upsert_object_type(
        ObjectType(
            id="city",
            name="City",
            primary_keys=("code",),
            properties=(DataProperty(name="code", indexed=True),),
        )
    )
    assert set(store.objects("city")) == {"c1"}
    assert store.indexed_lookup("city", "code", ["PAR"]) == {"c1"}


def test_redefining_indexed_properties_rebuilds_the_index(shop: OntologyStore) -> None:
    user = shop.object_types()["user"]
    props = tuple(
        DataProperty(name=p.name, type=p.type, indexed=p.name == "name") for p in user.properties
    )
    shop.upsert_object_type(
        ObjectType(id="user", name="User", primary_keys=("uid",), properties=props)
    )
    assert shop.indexed_lookup("user", "city", ["London"]) is None
    assert shop.indexed_lookup("user", "name", ["Alan Turing"]) == {"u2"}


def test_removing_types_removes_their_data(shop: OntologyStore) -> None:
    shop.remove_relation_type("follows")
    assert shop.neighbours("follows", "u1", forward=True) == ()
    shop.remove_object_type("order")
    assert shop.objects("order") == {}
    assert shop.get_object("order", "o1") is None


def test_sorted_ids_cache_follows_inserts_and_deletes(shop: OntologyStore) -> None:
    assert list(shop.sorted_ids("product")) == ["p1", "p2", "p3", "p9"]
    shop.upsert_object(ObjectInstance("product", "p0", {"pid": "p0"}))
    shop.remove_object("product", "p9")
    assert list(shop.sorted_ids("product")) == ["p0", "p1", "p2", "p3"]
