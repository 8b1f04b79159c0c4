"""The trace view in PostgreSQL (psycopg 3): shared by every trace-recorder replica.

The reader connection commits with ``synchronous_commit = off``: it carries the live path's
writes, which the consumer writes again, durably and with their offsets, once it reads them from
Kafka. Migrations take a transaction-scoped advisory lock so replicas starting together migrate
once. A consumer's batch is written with one COPY per table into a temporary staging table of the
connection and one ``INSERT ... SELECT ... ON CONFLICT`` from it (the same conflict rules as the
row-by-row statements), inside the batch's transaction: a few statements per batch instead of
one per row. ``schema`` (optional) puts every table in that schema (``clctl replay`` rebuilds into a
fresh one).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from trace_recorder.adapters.sql_dialect import SqlDialect
from trace_recorder.adapters.sql_rows import UPSERTS, Upsert
from trace_recorder.adapters.sql_schema import Ddl
from trace_recorder.adapters.sql_view import SqlTraceView

_MIGRATION_LOCK = 0x7472616365  # "trace"


class PostgresDialect(SqlDialect):
    ddl = Ddl(bigint="BIGINT", bool="BOOLEAN", double="DOUBLE PRECISION",
              seq="seq BIGINT GENERATED ALWAYS AS IDENTITY,")
    insertion_order = "seq"
    transient = (psycopg.OperationalError, psycopg.InterfaceError)
    placeholder = "%s"

    def __init__(self, url: str, password: str | None = None, schema: str | None = None,
                 connect_timeout: float = 5) -> None:
        params = conninfo_to_dict(url.replace("postgresql+psycopg://", "postgresql://"))
        if password:
            params["password"] = password
        params.setdefault("connect_timeout", str(int(connect_timeout)))
        params.setdefault("application_name", "trace-recorder")
        self._conninfo = make_conninfo("", **params)
        self.schema = schema

    def connect(self, role: str) -> Any:
        connection = psycopg.connect(self._conninfo, autocommit=True)
        if self.schema:
            # replicas starting together race here (IF NOT EXISTS does not serialise sessions)
            with suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateSchema):
                connection.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
            connection.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        if role == "reader":
            connection.execute("SET synchronous_commit TO off")
        return connection

    @contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        with connection.transaction():
            yield

    def prepare(self, connection: Any) -> None:
        """This connection's staging tables: the columns of each upsert, emptied at every commit
        (and by a rollback), plus the order rows were copied in."""
        for upsert in UPSERTS.values():
            stage = sql.Identifier(_stage(upsert))
            connection.execute(sql.SQL(
                "CREATE TEMPORARY TABLE IF NOT EXISTS {} ON COMMIT DELETE ROWS AS "
                "SELECT {} FROM {} WITH NO DATA").format(
                    stage, sql.SQL(", ").join(map(sql.Identifier, upsert.names)),
                    sql.Identifier(upsert.table)))
            connection.execute(sql.SQL(
                "ALTER TABLE {} ADD COLUMN IF NOT EXISTS stage_order BIGINT "
                "GENERATED ALWAYS AS IDENTITY").format(stage))

    def upsert(self, cursor: Any, upsert: Upsert, rows: Sequence[tuple[Any, ...]], *, bulk: bool) -> None:
        if not bulk:
            super().upsert(cursor, upsert, rows, bulk=bulk)
            return
        stage = _stage(upsert)
        with cursor.copy(sql.SQL("COPY {} ({}) FROM STDIN").format(
                sql.Identifier(stage), sql.SQL(", ").join(map(sql.Identifier, upsert.names)))) as copy:
            for row in rows:
                copy.write_row(row)
        cursor.execute(upsert.statement(source=stage))

    def member(self, column: str, subquery: str) -> str:
        """``= ANY(ARRAY(subquery))``: the subquery runs first (an interaction's few ids), then
        an index scan for them; ``IN (subquery)`` let the planner pick a hash join over a
        whole table (16 ms where this takes 0.1 ms, with statistics not analysed yet)."""
        return f"{column} = ANY(ARRAY({subquery}))"

    def fetch_together(self, connection: Any, statements: Sequence[tuple[str, tuple[Any, ...]]]) -> list[list[Any]]:
        """All in one pipeline: one round trip, one implicit transaction (one snapshot)."""
        with connection.pipeline() as pipeline:
            cursors = []
            for statement, params in statements:
                cursor = connection.cursor()
                cursor.execute(statement, params)
                cursors.append(cursor)
            pipeline.sync()
            return [list(cursor.fetchall()) for cursor in cursors]

    def lock_migrations(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))

    def drop_schema(self) -> None:
        """Remove ``schema`` and everything in it (a replay's scratch schema)."""
        if not self.schema:
            raise ValueError("no schema to drop")
        with psycopg.connect(self._conninfo, autocommit=True) as connection:
            connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self.schema)))


def _stage(upsert: Upsert) -> str:
    return f"stage_{upsert.table}"


class PostgresTraceView(SqlTraceView):
    def prune_statement(self) -> str:
        return ("DELETE FROM spans WHERE ctid IN (SELECT ctid FROM spans "
                "WHERE end_time_unix_nano < %s LIMIT %s)")


def postgres_view(url: str, password: str | None = None, schema: str | None = None) -> SqlTraceView:
    """The view in the PostgreSQL database at ``url`` (migrated as needed)."""
    return PostgresTraceView(PostgresDialect(url, password, schema))
