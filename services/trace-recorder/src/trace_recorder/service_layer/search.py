"""Finding interactions and conversations for the operator read API: filters, newest first,
and a cursor that resumes after the last item of a page (its start time and id).

The in-memory fold is here (the :class:`TraceStore`'s answer); the SQL adapters answer the same
query in the database (``trace_recorder.adapters.sql_search``), in the same order.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from trace_recorder.domain.model import Conversation, Interaction, Operation, Receipt

T = TypeVar("T")

Position = tuple[str, str]
"""Where a newest-first listing stands: (start time, id) of the last item returned."""


@dataclass(frozen=True)
class TraceQuery:
    """Every filter is optional; ``since`` / ``until`` bound the start time (ISO 8601, UTC)."""

    account: str | None = None
    agent: str | None = None
    kn_id: str | None = None
    tool: str | None = None
    outcome: str | None = None
    evidence_status: str | None = None
    since: str | None = None
    until: str | None = None
    after: Position | None = None
    limit: int = 50

    @property
    def per_interaction(self) -> bool:
        """True when a filter looks inside interactions (their operations or receipts)."""
        return any((self.kn_id, self.tool, self.outcome, self.evidence_status))


class TraceSearch(Protocol):
    """What the views answer for the read API (newest first, at most ``limit`` + 1 items, so
    the caller knows whether there is a next page)."""

    def search_interactions(self, query: TraceQuery) -> list[Interaction]: ...

    def search_conversations(self, query: TraceQuery) -> list[Conversation]: ...


def utc_instant(value: str) -> str:
    """An ISO 8601 instant as the view stores times (``datetime.isoformat`` in UTC); a value
    without an offset is taken as UTC. ``ValueError`` when it is not one."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).isoformat()


def encode_cursor(position: Position) -> str:
    raw = f"{position[0]}\n{position[1]}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> Position:
    """``ValueError`` for a cursor this module did not make."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise ValueError("not a cursor") from exc
    started, sep, item = raw.partition("\n")
    if not sep or not started or not item:
        raise ValueError("not a cursor")
    return started, item


def page(items: list[T], query: TraceQuery, key: Callable[[T], Position]) -> tuple[list[T], str | None]:
    """The first ``limit`` of ``items`` (a search's answer) and the cursor of the next page
    (None on the last one); ``key`` says where an item stands."""
    kept = items[:query.limit]
    return kept, encode_cursor(key(kept[-1])) if len(items) > query.limit else None


# ---------------------------------------------------------------------- in memory


class MemoryRecords(Protocol):
    interactions: dict[str, Interaction]
    conversations: dict[str, Conversation]
    operations: dict[str, Operation]
    receipts: dict[str, Receipt]


def _newer_first(items: Iterable[T], key: Callable[[T], Position], query: TraceQuery) -> list[T]:
    ranked = sorted(items, key=key, reverse=True)
    if query.after is not None:
        ranked = [i for i in ranked if key(i) < query.after]
    return ranked[:query.limit + 1]


def interaction_position(i: Interaction) -> Position:
    return (i.started_at, i.interaction_id)


def conversation_position(c: Conversation) -> Position:
    return (c.created_at, c.conversation_id)


def _in_range(instant: str, query: TraceQuery) -> bool:
    return (query.since is None or instant >= query.since) and (query.until is None or instant < query.until)


def _inside(records: MemoryRecords, i: Interaction, query: TraceQuery) -> bool:
    if query.outcome is not None and i.outcome != query.outcome:
        return False
    if query.evidence_status is not None and i.evidence_status != query.evidence_status:
        return False
    if query.tool is None and query.kn_id is None:
        return True
    ops = [o for o in records.operations.values() if o.interaction_id == i.interaction_id]
    receipts = [r for r in records.receipts.values() if r.interaction_id == i.interaction_id]
    if query.kn_id is not None and not any(r.kn_id == query.kn_id for r in receipts):
        return False
    return query.tool is None or any(o.tool_name == query.tool for o in ops) or any(
        r.tool_id == query.tool for r in receipts)


def memory_interactions(records: MemoryRecords, query: TraceQuery) -> list[Interaction]:
    found = (i for i in records.interactions.values()
             if (query.account is None or i.account == query.account)
             and (query.agent is None or i.agent_name == query.agent)
             and _in_range(i.started_at, query) and _inside(records, i, query))
    return _newer_first(found, interaction_position, query)


def memory_conversations(records: MemoryRecords, query: TraceQuery) -> list[Conversation]:
    inner = replace(query, account=None, agent=None, since=None, until=None, after=None)

    def matches(c: Conversation) -> bool:
        if not query.per_interaction:
            return True
        return any(_inside(records, records.interactions[i], inner)
                   for i in c.interaction_ids if i in records.interactions)

    found = (c for c in records.conversations.values()
             if (query.account is None or c.account == query.account)
             and (query.agent is None or c.agent_name == query.agent)
             and _in_range(c.created_at, query) and matches(c))
    return _newer_first(found, conversation_position, query)
