"""The read API's searches (:mod:`trace_recorder.service_layer.search`) in SQL: one select per
page, newest first by (start time, id), the cursor as a keyset condition."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trace_recorder.service_layer.search import TraceQuery

Rows = Callable[[str, Sequence[Any]], list[Any]]


def _inside(query: TraceQuery, alias: str) -> tuple[list[str], list[Any]]:
    """Conditions on interaction ``alias`` that look at its outcome, operations and receipts."""
    where: list[str] = []
    params: list[Any] = []
    if query.outcome is not None:
        where.append(f"{alias}.outcome = ?")
        params.append(query.outcome)
    if query.evidence_status is not None:
        where.append(f"{alias}.evidence_status = ?")
        params.append(query.evidence_status)
    # uncorrelated subqueries: computed once per search (receipts has no index by interaction)
    if query.kn_id is not None:
        where.append(f"{alias}.interaction_id IN (SELECT interaction_id FROM receipts WHERE kn_id = ?)")
        params.append(query.kn_id)
    if query.tool is not None:
        where.append(f"({alias}.interaction_id IN (SELECT interaction_id FROM operations WHERE tool_name = ?) "
                     f"OR {alias}.interaction_id IN (SELECT interaction_id FROM receipts WHERE tool_id = ?))")
        params += [query.tool, query.tool]
    return where, params


def _outer(query: TraceQuery, alias: str, when: str, ident: str) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    for column, value in ((f"{alias}.account", query.account), (f"{alias}.agent_name", query.agent)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if query.since is not None:
        where.append(f"{alias}.{when} >= ?")
        params.append(query.since)
    if query.until is not None:
        where.append(f"{alias}.{when} < ?")
        params.append(query.until)
    if query.after is not None:
        where.append(f"({alias}.{when} < ? OR ({alias}.{when} = ? AND {alias}.{ident} < ?))")
        params += [query.after[0], query.after[0], query.after[1]]
    return where, params


def _select(columns: Sequence[str], table: str, alias: str, where: list[str], when: str, ident: str,
            limit: int) -> str:
    listed = ", ".join(f"{alias}.{c}" for c in columns)
    condition = " AND ".join(where) or "1 = 1"
    return (f"SELECT {listed} FROM {table} {alias} WHERE {condition} "
            f"ORDER BY {alias}.{when} DESC, {alias}.{ident} DESC LIMIT {int(limit) + 1}")


def interactions(rows: Rows, columns: Sequence[str], query: TraceQuery) -> list[Any]:
    where, params = _outer(query, "i", "started_at", "interaction_id")
    inner, more = _inside(query, "i")
    return rows(_select(columns, "interactions", "i", where + inner, "started_at", "interaction_id",
                        query.limit), params + more)


def conversations(rows: Rows, columns: Sequence[str], query: TraceQuery) -> list[Any]:
    where, params = _outer(query, "c", "created_at", "conversation_id")
    if query.per_interaction:
        inner, more = _inside(query, "i")
        where.append("EXISTS (SELECT 1 FROM interactions i WHERE i.conversation_id = c.conversation_id "
                     f"AND {' AND '.join(inner)})")
        params += more
    return rows(_select(columns, "conversations", "c", where, "created_at", "conversation_id",
                        query.limit), params)
