"""How trace records map to SQL rows: the columns of each table, the upserts whose conflict
rules are the in-memory store's merges, records to parameters and rows back to records, the
selects of one interaction's records, and the in-memory store's orders (lists are sorted in
Python, never by the database's collation)."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from bkn_common.contracts import json_codec
from bkn_common.infra.span_scope import INTERACTION_ATTRIBUTE, OPERATION_ATTRIBUTE
from trace_recorder.domain.model import Conversation, Evidence, Interaction, Operation, Receipt, Seal, Span

_JSON = {"result", "attributes", "source_refs", "record", "entries"}
_BOOL = {"capture_enabled", "new_conversation", "result_omitted", "outcome_known"}


def _columns(kind: type[Any], skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind) if f.name not in skip)


CONVERSATION = _columns(Conversation, ("interaction_ids",))
INTERACTION = _columns(Interaction)
OPERATION = _columns(Operation)
EVIDENCE = _columns(Evidence)
RECEIPT = _columns(Receipt)
SPAN = _columns(Span)
SEAL = _columns(Seal)

_FINISH = ("status", "outcome", "answer", "reason", "execution_status", "evidence_status",
           "unrecorded_calls", "operations_at_finish", "finished_at")
_FINAL = ("receipt_status", "evidence_durability", "completed_at", "result", "result_omitted",
          "execution_receipt_id")


def _set(names: Sequence[str]) -> str:
    return ", ".join(f"{n} = excluded.{n}" for n in names)


@dataclass(frozen=True)
class Upsert:
    """How one table's rows are written: its columns and what a conflicting row does."""

    table: str
    names: tuple[str, ...]
    conflict: str  # what follows ON CONFLICT

    def statement(self, source: str | None = None) -> str:
        """``INSERT ... VALUES (?, ...)``, or ``INSERT ... SELECT`` from the table ``source``."""
        columns = ", ".join(self.names)
        rows = (f"VALUES ({', '.join('?' for _ in self.names)})" if source is None
                else f"SELECT {columns} FROM {source} ORDER BY stage_order")
        return f"INSERT INTO {self.table} ({columns}) {rows} ON CONFLICT {self.conflict}"


def _upsert(table: str, names: Sequence[str], conflict: str) -> Upsert:
    return Upsert(table, tuple(names), conflict)


UPSERTS = {u.table: u for u in (
    _upsert("conversations", CONVERSATION, "DO NOTHING"),
    _upsert("conversation_interactions", ("conversation_id", "interaction_id"), "DO NOTHING"),
    _upsert("interactions", INTERACTION, (
        f"(interaction_id) DO UPDATE SET {_set(_FINISH)} "
        "WHERE interactions.status = 'active' AND excluded.status <> 'active'")),
    _upsert("operations", OPERATION, (
        f"(operation_id) DO UPDATE SET {_set(_FINAL)} "
        "WHERE operations.receipt_status = 'pending' AND excluded.receipt_status <> 'pending'")),
    _upsert("evidence", (*EVIDENCE, "receipt_known"), (
        f"(evidence_id) DO UPDATE SET {_set((*EVIDENCE[1:], 'receipt_known'))} "
        "WHERE evidence.origin = 'receipt' AND excluded.origin = 'receipt' "
        "AND NOT evidence.receipt_known AND excluded.receipt_known")),
    _upsert("receipts", RECEIPT, (
        f"(receipt_id) DO UPDATE SET {_set(RECEIPT[1:])} "
        "WHERE NOT receipts.outcome_known AND excluded.outcome_known")),
    _upsert("spans", (*SPAN, "operation_id", "interaction_id"), "DO NOTHING"),
    _upsert("interaction_seals", SEAL, "DO NOTHING"),
    _upsert("consumer_positions", ("topic", "partition_id", "next_offset"),
            "(topic, partition_id) DO UPDATE SET next_offset = excluded.next_offset"),
)}


def _dump(value: Any) -> str | None:
    return None if value is None else json_codec.dumps(value).decode()


@functools.cache
def _getter(names: tuple[str, ...]) -> tuple[Callable[[Any], tuple[Any, ...]], tuple[int, ...]]:
    """The columns of a record in one C call (``attrgetter``), and which of them are JSON."""
    return operator.attrgetter(*names), tuple(i for i, n in enumerate(names) if n in _JSON)


def row_params(record: Any, names: tuple[str, ...]) -> tuple[Any, ...]:
    get, json_at = _getter(names)
    row = get(record)
    if not json_at:
        return row
    values = list(row)
    for i in json_at:
        values[i] = _dump(values[i])
    return tuple(values)


def load_row(kind: type[Any], names: Sequence[str], row: Sequence[Any]) -> Any:
    data = {}
    for name, value in zip(names, row, strict=True):
        if name in _JSON:
            value = None if value is None else json_codec.loads(value)
        elif name in _BOOL:
            value = bool(value)
        data[name] = value
    return kind(**data)


def span_links(span: Span) -> tuple[str | None, str | None]:
    operation_id = span.attributes.get(OPERATION_ATTRIBUTE)
    interaction_id = span.attributes.get(INTERACTION_ATTRIBUTE)
    return (operation_id if isinstance(operation_id, str) else None,
            interaction_id if isinstance(interaction_id, str) else None)


def interaction_statements(member: Callable[[str, str], str]) -> tuple[str, ...]:
    """An interaction's records by its id alone (each ``?`` is the id): the interaction, its
    operations, their receipts and evidence, and its spans (tagged with it or one of its
    operations, or in the trace of one of their receipts). ``member(column, subquery)``: the
    dialect's "``column`` is one of the subquery's values"."""
    operations = "SELECT operation_id FROM operations WHERE interaction_id = ?"
    of_operations = member("operation_id", operations)
    traces = f"SELECT trace_id FROM receipts WHERE trace_id <> '' AND {of_operations}"
    return (
        f"SELECT {', '.join(INTERACTION)} FROM interactions WHERE interaction_id = ?",
        f"SELECT {', '.join(OPERATION)} FROM operations WHERE interaction_id = ?",
        f"SELECT {', '.join(RECEIPT)} FROM receipts WHERE {of_operations}",
        f"SELECT {', '.join(EVIDENCE)} FROM evidence WHERE {of_operations}",
        " UNION ".join(f"SELECT {', '.join(SPAN)} FROM spans WHERE {where}" for where in (
            "interaction_id = ?", of_operations, member("trace_id", traces))),
    )


# the in-memory store's orders
def operation_order(o: Operation) -> tuple[str, str]:
    return (o.begun_at, o.operation_id)


def receipt_order(r: Receipt) -> tuple[str, str]:
    return (r.executed_at, r.receipt_id)


def evidence_order(e: Evidence) -> tuple[str, int, str]:
    return (e.evidence_type, e.attempt, e.evidence_id)


def span_order(s: Span) -> tuple[int, str]:
    return (s.start_time_unix_nano, s.span_id)


def grouped(items: list[Any], order: Callable[[Any], Any]) -> dict[str, list[Any]]:
    """Records by their ``operation_id``, each list sorted by ``order``."""
    grouped: dict[str, list[Any]] = {}
    for item in items:
        grouped.setdefault(item.operation_id or "", []).append(item)
    for group in grouped.values():
        group.sort(key=order)
    return grouped
