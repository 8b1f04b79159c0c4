"""The trace view in SQL: what the SQLite and PostgreSQL adapters share.

Writes fold each batch with the in-memory merges of :class:`TraceStore` (a scratch store that
starts from the interactions the batch finishes, read from the database), then write what the
batch made with upserts whose conditions are those same merges, so a row another writer (the
live path, another replica) changed in between is never set back: an interaction finishes once,
an operation turns final once, a known receipt outcome is never replaced by a recovered one,
everything else is created once. The batch and its offsets commit in one transaction.

Rows are read back into the domain dataclasses; lists are sorted in Python with the same keys
as the in-memory store (no dependence on the database's collation). How records map to rows is
:mod:`.sql_rows`; what each database supplies is :class:`~.sql_dialect.SqlDialect`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import EventRecord
from bkn_common.framework.digest import state_digest
from trace_recorder.adapters import sql_search
from trace_recorder.adapters.sql_dialect import SqlDialect
from trace_recorder.adapters.sql_rows import (
    CONVERSATION,
    EVIDENCE,
    INTERACTION,
    OPERATION,
    RECEIPT,
    SEAL,
    SPAN,
    UPSERTS,
    evidence_order,
    grouped,
    interaction_statements,
    load_row,
    operation_order,
    receipt_order,
    row_params,
    span_links,
    span_order,
)
from trace_recorder.adapters.sql_schema import migrate
from trace_recorder.domain.model import Conversation, Evidence, Interaction, Operation, Receipt, Seal, Span
from trace_recorder.service_layer.search import TraceQuery
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import InteractionRecords, Position, StoreUnavailable

log = logging.getLogger(__name__)


class SqlTraceView:
    """The :class:`TraceView` on a SQL database; see the module docstring.

    Two connections: the reader serves queries and the live path's small writes (on the
    caller's thread); the writer folds the consumer's batches in a worker thread, so a large
    batch does not hold up the API.
    """

    def __init__(self, dialect: SqlDialect) -> None:
        self._dialect = dialect
        self._conns: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._migrated = False
        self._records_sql = interaction_statements(dialect.member)
        with self._guard():
            reader = self._conn("reader")
            migrate(reader, dialect.ddl, lambda: dialect.transaction(reader),
                    lock=dialect.lock_migrations)
            dialect.prepare(reader)
        self._migrated = True

    # ------------------------------------------------------------------ plumbing

    def _conn(self, role: str) -> Any:
        connection = self._conns.get(role)
        if connection is None:
            connection = self._dialect.connect(role)
            if self._migrated:  # the first one is prepared once it has migrated the schema
                self._dialect.prepare(connection)
            self._conns[role] = connection
        return connection

    @contextmanager
    def _guard(self, role: str = "reader") -> Iterator[None]:
        try:
            yield
        except self._dialect.transient as exc:
            broken = self._conns.pop(role, None)
            if broken is not None:
                with _quiet():
                    broken.close()
            raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc

    def _rows(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._guard():
            cursor = self._conn("reader").cursor()
            cursor.execute(self._dialect.sql(statement), tuple(params))
            return list(cursor.fetchall())

    def _many(self, kind: type[Any], names: Sequence[str], table: str, where: str,
              params: Sequence[Any] = ()) -> list[Any]:
        rows = self._rows(f"SELECT {', '.join(names)} FROM {table} WHERE {where}", params)
        return [load_row(kind, names, row) for row in rows]

    def _one(self, kind: type[Any], names: Sequence[str], table: str, where: str,
             params: Sequence[Any]) -> Any:
        found = self._many(kind, names, table, where, params)
        return found[0] if found else None

    # ------------------------------------------------------------------ writes

    def apply(self, record: EventRecord) -> None:
        self.apply_events([record.event])

    def apply_events(self, events: Sequence[ev.Event]) -> None:
        with self._guard():
            self._write("reader", events, {})

    async def apply_batch(self, events: Sequence[ev.Event], positions: Mapping[Position, int]) -> None:
        await asyncio.to_thread(self._write_batch, list(events), dict(positions))

    def _write_batch(self, events: list[ev.Event], positions: dict[Position, int]) -> None:
        with self._lock, self._guard("writer"):
            self._write("writer", events, positions)

    def _write(self, role: str, events: Sequence[ev.Event], positions: Mapping[Position, int]) -> None:
        connection = self._conn(role)
        with self._dialect.transaction(connection):
            cursor = connection.cursor()
            scratch, loaded = self._scratch(cursor, events)
            bulk = role == "writer"
            for table, params in self._changes(scratch, loaded).items():
                if params:
                    self._dialect.upsert(cursor, UPSERTS[table], params, bulk=bulk)
            if positions:
                self._dialect.upsert(cursor, UPSERTS["consumer_positions"],
                                     [(t, p, o) for (t, p), o in positions.items()], bulk=False)

    def _scratch(self, cursor: Any, events: Sequence[ev.Event]) -> tuple[TraceStore, dict[str, Interaction]]:
        """Fold ``events`` into a fresh store that starts from the interactions they finish."""
        scratch = TraceStore()
        finishing = sorted({e.interaction_id for e in events if isinstance(e, ev.InteractionFinished)})
        loaded: dict[str, Interaction] = {}
        for chunk in _chunks(finishing, 500):
            marks = ", ".join("?" for _ in chunk)
            cursor.execute(self._dialect.sql(
                f"SELECT {', '.join(INTERACTION)} FROM interactions WHERE interaction_id IN ({marks})"),
                tuple(chunk))
            for row in cursor.fetchall():
                interaction: Interaction = load_row(Interaction, INTERACTION, row)
                scratch.interactions[interaction.interaction_id] = interaction
                loaded[interaction.interaction_id] = replace(interaction)
        scratch.apply_events(events)
        return scratch, loaded

    @staticmethod
    def _changes(scratch: TraceStore, loaded: dict[str, Interaction]) -> dict[str, list[tuple[Any, ...]]]:
        spans = [s for trace in scratch.spans.values() for s in trace.values()]
        return {
            "conversations": [row_params(c, CONVERSATION) for c in scratch.conversations.values()],
            "conversation_interactions": [(c.conversation_id, i) for c in scratch.conversations.values()
                                          for i in sorted(c.interaction_ids)],
            "interactions": [row_params(i, INTERACTION) for k, i in scratch.interactions.items()
                             if loaded.get(k) != i],
            "operations": [row_params(o, OPERATION) for o in scratch.operations.values()],
            "evidence": [(*row_params(e, EVIDENCE),
                          bool(e.attributes.get("outcome_known")) if e.origin == "receipt" else None)
                         for e in scratch.evidence.values()],
            "receipts": [row_params(r, RECEIPT) for r in scratch.receipts.values()],
            "spans": [(*row_params(s, SPAN), *span_links(s)) for s in spans],
            "interaction_seals": [row_params(s, SEAL) for s in scratch.seals.values()],
        }

    def positions(self) -> dict[Position, int]:
        rows = self._rows("SELECT topic, partition_id, next_offset FROM consumer_positions")
        return {(str(t), int(p)): int(o) for t, p, o in rows}

    def prune_spans(self, ended_before_unix_nano: int, batch_size: int) -> int:
        with self._guard():
            connection = self._conn("reader")
            with self._dialect.transaction(connection):
                cursor = connection.cursor()
                cursor.execute(self._dialect.sql(self.prune_statement()),
                               (ended_before_unix_nano, batch_size))
                return int(cursor.rowcount)

    def prune_statement(self) -> str:
        return ("DELETE FROM spans WHERE (trace_id, span_id) IN (SELECT trace_id, span_id FROM spans "
                "WHERE end_time_unix_nano < ? LIMIT ?)")

    # ------------------------------------------------------------------ reads

    def conversation(self, conversation_id: str) -> Conversation | None:
        found: Conversation | None = self._one(Conversation, CONVERSATION, "conversations",
                                               "conversation_id = ?", (conversation_id,))
        if found is not None:
            rows = self._rows("SELECT interaction_id FROM conversation_interactions "
                              "WHERE conversation_id = ?", (conversation_id,))
            found.interaction_ids = {r[0] for r in rows}
        return found

    def interaction(self, interaction_id: str) -> Interaction | None:
        found: Interaction | None = self._one(Interaction, INTERACTION, "interactions",
                                              "interaction_id = ?", (interaction_id,))
        return found

    def operation(self, operation_id: str) -> Operation | None:
        found: Operation | None = self._one(Operation, OPERATION, "operations", "operation_id = ?",
                                            (operation_id,))
        return found

    def operation_by_key(self, key: str) -> Operation | None:
        order = self._dialect.insertion_order
        found: Operation | None = self._one(Operation, OPERATION, "operations",
                                            f"operation_key = ? ORDER BY {order} DESC LIMIT 1", (key,))
        return found

    def receipt(self, receipt_id: str) -> Receipt | None:
        found: Receipt | None = self._one(Receipt, RECEIPT, "receipts", "receipt_id = ?", (receipt_id,))
        return found

    def conversation_by_host_key(self, account: str, host_key: str) -> str | None:
        rows = self._rows("SELECT conversation_id FROM conversations WHERE account = ? AND "
                          f"host_conversation_key = ? ORDER BY {self._dialect.insertion_order} DESC LIMIT 1",
                          (account, host_key))
        return str(rows[0][0]) if rows else None

    def interaction_by_invocation(self, account: str, invocation_id: str) -> Interaction | None:
        found: Interaction | None = self._one(
            Interaction, INTERACTION, "interactions",
            f"account = ? AND invocation_id = ? ORDER BY {self._dialect.insertion_order} DESC LIMIT 1",
            (account, invocation_id))
        return found

    def interactions_of(self, conversation_id: str) -> list[Interaction]:
        found: list[Interaction] = self._many(
            Interaction, INTERACTION, "interactions",
            "interaction_id IN (SELECT interaction_id FROM conversation_interactions "
            "WHERE conversation_id = ?)", (conversation_id,))
        return sorted(found, key=lambda i: (i.started_at, i.interaction_id))

    def active_interaction(self, conversation_id: str) -> Interaction | None:
        active = [i for i in self.interactions_of(conversation_id) if i.active]
        return max(active, key=lambda i: (i.started_at, i.interaction_id), default=None)

    def operations_of(self, interaction_id: str) -> list[Operation]:
        found: list[Operation] = self._many(Operation, OPERATION, "operations", "interaction_id = ?",
                                            (interaction_id,))
        return sorted(found, key=operation_order)

    def operation_count(self, interaction_id: str) -> int:
        rows = self._rows("SELECT count(*) FROM operations WHERE interaction_id = ?", (interaction_id,))
        return int(rows[0][0])

    def evidence_of(self, operation_id: str) -> list[Evidence]:
        found = self._many(Evidence, EVIDENCE, "evidence", "operation_id = ?", (operation_id,))
        return sorted(found, key=evidence_order)

    def receipts_of(self, operation_id: str) -> list[Receipt]:
        found = self._many(Receipt, RECEIPT, "receipts", "operation_id = ?", (operation_id,))
        return sorted(found, key=receipt_order)

    def seals_of(self, interaction_id: str) -> list[Seal]:
        found: list[Seal] = self._many(Seal, SEAL, "interaction_seals", "interaction_id = ?", (interaction_id,))
        return sorted(found, key=lambda s: s.seq)

    def finished_since(self, since: str, limit: int) -> list[tuple[str, str]]:
        rows = self._rows("SELECT interaction_id, finished_at FROM interactions WHERE status <> 'active' "
                          "AND finished_at >= ? ORDER BY finished_at, interaction_id LIMIT ?", (since, limit))
        return [(str(r[0]), str(r[1])) for r in rows]

    def spans_of_interaction(self, interaction_id: str) -> list[Span]:
        statement = self._records_sql[-1]
        rows = self._rows(statement, (interaction_id,) * statement.count("?"))
        return sorted((load_row(Span, SPAN, row) for row in rows), key=span_order)

    def interaction_records(self, interaction_id: str) -> InteractionRecords | None:
        """Five selects that depend on nothing but the interaction id, sent together
        (:meth:`SqlDialect.fetch_together`: one round trip on PostgreSQL)."""
        key = (interaction_id,)
        rows = self._rows_together([(statement, key * statement.count("?"))
                                    for statement in self._records_sql])
        if not rows[0]:
            return None
        interaction: Interaction = load_row(Interaction, INTERACTION, rows[0][0])
        operations = sorted((load_row(Operation, OPERATION, row) for row in rows[1]), key=operation_order)
        ids = [o.operation_id for o in operations]
        receipts = grouped([load_row(Receipt, RECEIPT, row) for row in rows[2]], receipt_order)
        evidence = grouped([load_row(Evidence, EVIDENCE, row) for row in rows[3]], evidence_order)
        spans = sorted((load_row(Span, SPAN, row) for row in rows[4]), key=span_order)
        return InteractionRecords(
            interaction, operations,
            receipts={i: receipts.get(i, []) for i in ids},
            evidence={i: evidence.get(i, []) for i in ids},
            spans=spans,
        )

    def search_interactions(self, query: TraceQuery) -> list[Interaction]:
        return [load_row(Interaction, INTERACTION, row)
                for row in sql_search.interactions(self._rows, INTERACTION, query)]

    def search_conversations(self, query: TraceQuery) -> list[Conversation]:
        return [load_row(Conversation, CONVERSATION, row)
                for row in sql_search.conversations(self._rows, CONVERSATION, query)]

    def _rows_together(self, statements: Sequence[tuple[str, Sequence[Any]]]) -> list[list[Any]]:
        with self._guard():
            return self._dialect.fetch_together(
                self._conn("reader"), [(self._dialect.sql(q), tuple(p)) for q, p in statements])

    # ------------------------------------------------------------------ digest

    def counts(self) -> dict[str, int]:
        tables = ("conversations", "interactions", "operations", "evidence", "receipts", "spans")
        return {t: int(self._rows(f"SELECT count(*) FROM {t}")[0][0]) for t in tables}

    def snapshot(self) -> dict[str, Any]:
        """The same sections as :meth:`TraceStore.snapshot` (so the same digest)."""
        links: dict[str, list[str]] = {}
        for cid, iid in self._rows("SELECT conversation_id, interaction_id FROM conversation_interactions"):
            links.setdefault(cid, []).append(iid)
        conversations = {}
        for c in self._many(Conversation, CONVERSATION, "conversations", "1 = 1"):
            data = asdict(c)
            data["interaction_ids"] = sorted(links.get(c.conversation_id, ()))
            conversations[c.conversation_id] = data
        spans = self._many(Span, SPAN, "spans", "1 = 1")
        return {
            "conversations": conversations,
            "interactions": {i.interaction_id: asdict(i)
                             for i in self._many(Interaction, INTERACTION, "interactions", "1 = 1")},
            "operations": {o.operation_id: asdict(o)
                           for o in self._many(Operation, OPERATION, "operations", "1 = 1")},
            "evidence": {e.evidence_id: asdict(e) for e in self._many(Evidence, EVIDENCE, "evidence", "1 = 1")},
            "receipts": {r.receipt_id: asdict(r) for r in self._many(Receipt, RECEIPT, "receipts", "1 = 1")},
            "spans": {f"{s.trace_id}/{s.span_id}": asdict(s) for s in spans},
            "seals": {f"{s.interaction_id}/{s.seq}": asdict(s)
                      for s in self._many(Seal, SEAL, "interaction_seals", "1 = 1")},
        }

    def digest(self) -> str:
        result: str = state_digest(self.snapshot())["sha256"]
        return result

    def close(self) -> None:
        with self._lock:
            for connection in self._conns.values():
                with _quiet():
                    connection.close()
            self._conns.clear()


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


@contextmanager
def _quiet() -> Iterator[None]:
    try:
        yield
    except Exception as exc:  # closing a broken connection: nothing left to do
        log.debug("closing a connection failed: %s", exc)

