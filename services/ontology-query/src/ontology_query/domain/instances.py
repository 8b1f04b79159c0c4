"""Flat queries over one object type: filter, sort, page (offset or cursor), count.

:func:`select_instances` is the engine shared with subgraph queries (path-template nodes and
exploration start objects); :func:`query_object_instance` is the object-instance API on top.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import heapq
import json
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ontology_query.domain.conditions import BoundCondition, bind_condition
from ontology_query.domain.errors import DomainError, QueryErrorCode, limit_error
from ontology_query.domain.model import ObjectInstance, ObjectType
from ontology_query.domain.ordering import Ordering, SortKey, parse_sort
from ontology_query.domain.results import ObjectView
from ontology_query.domain.store import OntologyStore

MAX_LIMIT = 10_000
DEFAULT_LIMIT = 10


@dataclass(frozen=True, slots=True)
class Selection:
    """One page of instances; ``total_count`` counts every match (when it was computed)."""

    objects: list[ObjectInstance]
    total_count: int | None
    has_more: bool


def require_object_type(store: OntologyStore, ot_id: object, **context: object) -> ObjectType:
    """The object type ``ot_id`` or ``UNKNOWN_OBJECT_TYPE``."""
    object_type = store.object_type(ot_id) if isinstance(ot_id, str) else None
    if object_type is None:
        raise DomainError(QueryErrorCode.UNKNOWN_OBJECT_TYPE, {"object_type_id": ot_id, **context})
    return object_type


def check_limit(value: object, name: str = "limit", default: int = DEFAULT_LIMIT) -> int:
    """``value`` as an int in 1..10000 (``default`` when ``None``), else ``INVALID_LIMIT``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise limit_error(name, value, 1, MAX_LIMIT)
    return value


def check_offset(offset: object, cursor: object, cursor_name: str) -> int:
    """Offset as a non-negative int; a non-zero offset cannot be combined with a cursor."""
    if offset is None:
        return 0
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise DomainError(QueryErrorCode.INVALID_OFFSET, {"value": offset})
    if offset and cursor is not None:
        raise DomainError(QueryErrorCode.OFFSET_AND_SEARCH_AFTER, {"cursor_name": cursor_name})
    return offset


def select_instances(
    store: OntologyStore,
    object_type: ObjectType,
    condition: BoundCondition | None,
    ordering: Ordering,
    *,
    limit: int,
    offset: int = 0,
    after: SortKey | None = None,
    need_total: bool = True,
) -> Selection:
    """Matching instances of ``object_type`` in ``ordering``: skip ``offset`` or everything
    up to and including ``after``, then take ``limit``."""
    objects = store.objects(object_type.id)
    if condition is None and ordering.is_default:
        ids = store.sorted_ids(object_type.id)
        start = bisect_right(ids, after[0]) if after is not None else offset
        page = [objects[i] for i in ids[start : start + limit + 1]]
        return Selection(page[:limit], len(ids), len(page) > limit)

    candidates: Iterable[ObjectInstance] = objects.values()
    total = len(objects)
    if condition is not None:
        found = condition.candidates(lambda f, v: store.indexed_lookup(object_type.id, f, v))
        if found is None and ordering.is_default and not need_total:
            return _stream_by_id(store, object_type, condition, limit, offset, after)
        if found is not None:
            candidates = [objects[i] for i in found if i in objects]
        predicate = condition.predicate
        matched = [o for o in candidates if predicate(o.properties)]
        candidates, total = matched, len(matched)
    key = ordering.key
    if after is not None:
        candidates = [o for o in candidates if key(o) > after]
    wanted = offset + limit + 1
    top = heapq.nsmallest(wanted, candidates, key=key)
    return Selection(top[offset : offset + limit], total, len(top) > offset + limit)


def rank_instances(
    candidates: Iterable[ObjectInstance],
    condition: BoundCondition | None,
    ordering: Ordering,
    limit: int,
) -> list[ObjectInstance]:
    """The first ``limit`` of ``candidates`` that match ``condition``, in ``ordering``."""
    if condition is not None:
        predicate = condition.predicate
        candidates = [o for o in candidates if predicate(o.properties)]
    return heapq.nsmallest(limit, candidates, key=ordering.key)


def _stream_by_id(
    store: OntologyStore,
    object_type: ObjectType,
    condition: BoundCondition,
    limit: int,
    offset: int,
    after: SortKey | None,
) -> Selection:
    """Walk ids in order and stop after ``offset + limit + 1`` matches (no total)."""
    objects, predicate = store.objects(object_type.id), condition.predicate
    ids = store.sorted_ids(object_type.id)
    start = bisect_right(ids, after[0]) if after is not None else 0
    matched: list[ObjectInstance] = []
    for position in range(start, len(ids)):
        obj = objects[ids[position]]
        if predicate(obj.properties):
            matched.append(obj)
            if len(matched) > offset + limit:
                break
    return Selection(matched[offset : offset + limit], None, len(matched) > offset + limit)


@dataclass(frozen=True, slots=True)
class InstancePage:
    objects: tuple[ObjectView, ...]
    total_count: int | None
    cursor: str | None


def query_object_instance(
    store: OntologyStore,
    ot_id: str,
    *,
    condition: object = None,
    sort: Sequence[Mapping[str, Any]] | None = None,
    limit: int | None = None,
    offset: int | None = None,
    cursor: str | None = None,
    need_total: bool = False,
) -> InstancePage:
    """Instances of ``ot_id`` matching ``condition``, ordered by ``sort`` then id.

    Page with ``offset`` or with the opaque ``cursor`` of the previous page (not both).
    ``total_count`` is set when ``need_total``; ``cursor`` is ``None`` on the last page.
    """
    object_type = require_object_type(store, ot_id)
    page_size = check_limit(limit)
    skip = check_offset(offset, cursor, "cursor")
    bound = bind_condition(condition, object_type)
    ordering = Ordering(object_type, parse_sort(sort, object_type))
    fingerprint = _fingerprint(object_type, ordering, bound)
    after = _decode_cursor(cursor, ordering, fingerprint) if cursor is not None else None
    selection = select_instances(
        store, object_type, bound, ordering,
        limit=page_size, offset=skip, after=after, need_total=need_total,
    )  # fmt: skip
    next_cursor = None
    if selection.has_more and selection.objects:
        next_cursor = _encode_cursor(ordering.sort_values(selection.objects[-1]), fingerprint)
    return InstancePage(
        tuple(ObjectView.of(o, object_type) for o in selection.objects),
        selection.total_count if need_total else None,
        next_cursor,
    )


def _fingerprint(object_type: ObjectType, ordering: Ordering, bound: BoundCondition | None) -> str:
    text = repr((object_type.id, ordering.specs, bound.fingerprint if bound else None))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _encode_cursor(values: list[Any], fingerprint: str) -> str:
    raw = json.dumps({"v": values, "q": fingerprint}, separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: object, ordering: Ordering, fingerprint: str) -> SortKey:
    try:
        if not isinstance(cursor, str):
            raise ValueError
        padded = cursor + "=" * (-len(cursor) % 4)
        body = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(body, dict):
            raise ValueError
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise DomainError(
            QueryErrorCode.INVALID_CURSOR, {"cursor_name": "cursor"}, variant="malformed"
        ) from None
    if body.get("q") != fingerprint:
        raise DomainError(QueryErrorCode.INVALID_CURSOR, {"cursor_name": "cursor"}, variant="mismatch")
    return ordering.decode(body.get("v"), "cursor")
