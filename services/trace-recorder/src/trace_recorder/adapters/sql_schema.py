"""The SQL schema of trace-recorder's view, as versioned migrations (SQLite and PostgreSQL).

``migrate`` runs at every start (and by ``clctl trace-recorder migrate``): it applies, each in
its own transaction, the migrations newer than the database's version, so an old database is
upgraded in place. A database whose version is newer than the newest migration here was
written by a newer trace-recorder; it is refused (:class:`SchemaTooNew`), never misread.
DDL is written once with ``{bigint}``, ``{bool}``, ``{double}`` and ``{seq}`` filled in per
dialect.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trace_recorder.service_layer.view_ports import SchemaTooNew

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Migration:
    version: int
    what: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "tables of the view and the consumed offsets", (
        """CREATE TABLE conversations (
            conversation_id TEXT PRIMARY KEY, {seq} account TEXT NOT NULL,
            agent_name TEXT NOT NULL, created_at TEXT NOT NULL, host_conversation_key TEXT)""",
        """CREATE TABLE conversation_interactions (
            conversation_id TEXT NOT NULL, interaction_id TEXT NOT NULL,
            PRIMARY KEY (conversation_id, interaction_id))""",
        """CREATE TABLE interactions (
            interaction_id TEXT PRIMARY KEY, {seq} conversation_id TEXT NOT NULL,
            account TEXT NOT NULL, agent_name TEXT NOT NULL, question TEXT NOT NULL,
            capture_enabled {bool} NOT NULL, started_at TEXT NOT NULL,
            new_conversation {bool} NOT NULL, invocation_id TEXT, input_hash TEXT,
            status TEXT NOT NULL, outcome TEXT, answer TEXT, reason TEXT, execution_status TEXT,
            evidence_status TEXT, unrecorded_calls {bigint} NOT NULL,
            operations_at_finish {bigint}, finished_at TEXT)""",
        """CREATE TABLE operations (
            operation_id TEXT PRIMARY KEY, {seq} operation_key TEXT NOT NULL,
            conversation_id TEXT NOT NULL, interaction_id TEXT NOT NULL, tool_name TEXT NOT NULL,
            input_hash TEXT NOT NULL, receipt_id TEXT NOT NULL, receipt_status TEXT NOT NULL,
            evidence_durability TEXT NOT NULL, begun_at TEXT NOT NULL, correlation TEXT,
            completed_at TEXT, result TEXT, result_omitted {bool} NOT NULL,
            execution_receipt_id TEXT)""",
        """CREATE TABLE evidence (
            evidence_id TEXT PRIMARY KEY, operation_id TEXT NOT NULL,
            interaction_id TEXT NOT NULL, evidence_type TEXT NOT NULL, attempt {bigint} NOT NULL,
            attributes TEXT NOT NULL, source_refs TEXT NOT NULL, recorded_at TEXT NOT NULL,
            origin TEXT NOT NULL, receipt_known {bool})""",
        """CREATE TABLE receipts (
            receipt_id TEXT PRIMARY KEY, operation_id TEXT, conversation_id TEXT,
            interaction_id TEXT, kn_id TEXT NOT NULL, tool_id TEXT NOT NULL,
            owner_id TEXT NOT NULL, capability_type TEXT NOT NULL, outcome TEXT NOT NULL,
            status_code {bigint}, latency_ms {double} NOT NULL, executed_at TEXT NOT NULL,
            trace_id TEXT, outcome_known {bool} NOT NULL)""",
        """CREATE TABLE spans (
            trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_span_id TEXT,
            name TEXT NOT NULL, service_name TEXT NOT NULL, kind TEXT NOT NULL,
            start_time_unix_nano {bigint} NOT NULL, end_time_unix_nano {bigint} NOT NULL,
            status TEXT NOT NULL, attributes TEXT NOT NULL, operation_id TEXT,
            interaction_id TEXT, PRIMARY KEY (trace_id, span_id))""",
        """CREATE TABLE consumer_positions (
            topic TEXT NOT NULL, partition_id {bigint} NOT NULL, next_offset {bigint} NOT NULL,
            PRIMARY KEY (topic, partition_id))""",
    )),
    Migration(2, "indexes of the reads and of span retention", (
        "CREATE INDEX conversations_host_key ON conversations (account, host_conversation_key)",
        "CREATE INDEX interactions_invocation ON interactions (account, invocation_id)",
        "CREATE INDEX operations_interaction ON operations (interaction_id)",
        "CREATE INDEX operations_key ON operations (operation_key)",
        "CREATE INDEX evidence_operation ON evidence (operation_id)",
        "CREATE INDEX receipts_operation ON receipts (operation_id)",
        "CREATE INDEX spans_interaction ON spans (interaction_id)",
        "CREATE INDEX spans_operation ON spans (operation_id)",
        "CREATE INDEX spans_end_time ON spans (end_time_unix_nano)",
    )),
    Migration(3, "provenance: each receipt as published, the interactions' signed chain heads", (
        "ALTER TABLE receipts ADD COLUMN record TEXT",
        """CREATE TABLE interaction_seals (
            interaction_id TEXT NOT NULL, seq {bigint} NOT NULL, conversation_id TEXT NOT NULL,
            length {bigint} NOT NULL, entries TEXT NOT NULL, head TEXT NOT NULL,
            sealed_at TEXT NOT NULL, key_id TEXT NOT NULL, signature TEXT NOT NULL,
            PRIMARY KEY (interaction_id, seq))""",
        "CREATE INDEX interactions_finished ON interactions (finished_at)",
    )),
)
LATEST = MIGRATIONS[-1].version


@dataclass(frozen=True)
class Ddl:
    """What differs between the dialects' DDL."""

    bigint: str
    bool: str
    double: str
    seq: str  # an insertion-order column (with its trailing comma), or "" where rowid serves

    def render(self, statement: str) -> str:
        return statement.format(bigint=self.bigint, bool=self.bool, double=self.double, seq=self.seq)


VERSION_TABLE = "trace_schema_version"


def current_version(cursor: Any) -> int:
    cursor.execute(f"SELECT max(version) FROM {VERSION_TABLE}")
    row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def migrate(
    connection: Any, ddl: Ddl, transaction: Callable[[], Any], *, target: int = LATEST,
    lock: Callable[[Any], None] = lambda cursor: None,
) -> int:
    """Bring the database to ``target`` (default: the newest); return the version before.

    ``transaction()`` opens one transaction on ``connection`` (a context manager); ``lock``
    serialises concurrent migrators inside it (replicas starting together)."""
    with transaction():
        cursor = connection.cursor()
        lock(cursor)  # first: concurrent CREATE TABLE IF NOT EXISTS can collide on PostgreSQL
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version {ddl.bigint} NOT NULL)")
        before = current_version(cursor)
    if before > LATEST:
        raise SchemaTooNew(
            f"the trace view's database is at schema version {before}, newer than this "
            f"trace-recorder knows ({LATEST}): run the newer trace-recorder, or point this one "
            f"at another database; nothing was read or changed")
    for migration in MIGRATIONS:
        if migration.version <= before:
            continue  # applied before this start: no transaction, no lock
        if migration.version > target:
            break
        with transaction():
            cursor = connection.cursor()
            lock(cursor)
            if current_version(cursor) >= migration.version:
                continue  # another replica got there first
            for statement in migration.statements:
                cursor.execute(ddl.render(statement))
            cursor.execute(f"INSERT INTO {VERSION_TABLE} (version) VALUES ({migration.version})")
            log.info("trace view: schema migrated to version %d (%s)", migration.version, migration.what)
    return before
