"""Metric arithmetic (``domain/metrics.py``) on the shop network: aggregates over related
instances, grouping, the closed time window, and which related instances count."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from ontology_query.domain.metrics import Metric, Window, compute_metric
from ontology_query.domain.model import ObjectInstance
from ontology_query.domain.store import OntologyStore

NO_WINDOW: Window = (None, None)


def _user(store: OntologyStore, uid: str) -> ObjectInstance:
    found = store.get_object("user", uid)
    assert found is not None
    return found


def _orders(aggregate: Any, field: str | None = "amount", **kwargs: Any) -> Metric:
    """A user's orders: ``rel_order_user`` points order → user, so backward."""
    return Metric("rel_order_user", False, aggregate, field, **kwargs)


@pytest.mark.parametrize(("aggregate", "u1", "u4"), [
    ("count", 2, 0),
    ("sum", 200.5, 0),
    ("avg", 100.25, None),
    ("min", 80.5, None),
    ("max", 120.0, None),
])  # fmt: skip
def test_aggregates_over_the_related_instances(
    shop: OntologyStore, aggregate: str, u1: object, u4: object
) -> None:
    metric = _orders(aggregate, None if aggregate == "count" else "amount")
    assert compute_metric(shop, _user(shop, "u1"), metric, NO_WINDOW) == u1
    assert compute_metric(shop, _user(shop, "u4"), metric, NO_WINDOW) == u4  # no orders


def test_grouped_values_are_sorted_by_key(shop: OntologyStore) -> None:
    metric = _orders("sum", group_by="status")
    assert compute_metric(shop, _user(shop, "u1"), metric, NO_WINDOW) == [
        {"key": "new", "value": 80.5}, {"key": "paid", "value": 120.0}]
    assert compute_metric(shop, _user(shop, "u4"), metric, NO_WINDOW) == []


def test_a_sum_of_integers_stays_an_integer(shop: OntologyStore) -> None:
    ages = Metric("follows", True, "sum", "age")  # u1 follows u2 (41)
    result = compute_metric(shop, _user(shop, "u1"), ages, NO_WINDOW)
    assert result == 41 and isinstance(result, int)


def test_the_window_is_closed_on_both_ends(shop: OntologyStore) -> None:
    followed = Metric("follows", True, "count", time_field="joined")
    march = datetime(2024, 3, 1, tzinfo=UTC)  # u2 joined exactly then
    u1 = _user(shop, "u1")
    assert compute_metric(shop, u1, followed, (march, march)) == 1
    assert compute_metric(shop, u1, followed, (datetime(2024, 3, 2, tzinfo=UTC), None)) == 0
    # u3 follows u1, who joined in January
    assert compute_metric(shop, _user(shop, "u3"), followed, (None, march)) == 1
    assert compute_metric(shop, _user(shop, "u3"), followed, (march, None)) == 0


def test_only_admitted_instances_count(shop: OntologyStore) -> None:
    paid = compute_metric(shop, _user(shop, "u1"), _orders("sum"), NO_WINDOW,
                          admit=lambda order: order.properties["status"] == "paid")
    assert paid == 120.0


def test_an_unknown_relation_type_has_no_value(shop: OntologyStore) -> None:
    u1 = _user(shop, "u1")
    assert compute_metric(shop, u1, Metric("rel_gone", True, "count"), NO_WINDOW) is None
    assert compute_metric(shop, u1, Metric("rel_gone", True, "count", group_by="x"),
                          NO_WINDOW) == []
