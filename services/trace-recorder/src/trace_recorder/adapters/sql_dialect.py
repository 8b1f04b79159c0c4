"""What a SQL adapter of the trace view supplies (SQLite, PostgreSQL): connections,
transactions, its DDL, its transient errors and how it writes and reads in bulk."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trace_recorder.adapters.sql_rows import Upsert
from trace_recorder.adapters.sql_schema import Ddl


class SqlDialect:
    """What an adapter supplies: connections, transactions, its DDL and its transient errors."""

    ddl: Ddl
    insertion_order: str  # the column (or rowid) that orders rows by insertion
    transient: tuple[type[Exception], ...]
    placeholder: str = "?"

    def connect(self, role: str) -> Any:
        """A new DB-API connection in autocommit mode (``role``: "reader" or "writer")."""
        raise NotImplementedError

    def transaction(self, connection: Any) -> Any:
        """A context manager: one transaction on ``connection`` (commit, or roll back on error)."""
        raise NotImplementedError

    def lock_migrations(self, cursor: Any) -> None:
        """Serialise concurrent migrators inside a transaction (nothing by default)."""

    def sql(self, statement: str) -> str:
        return statement if self.placeholder == "?" else statement.replace("?", self.placeholder)

    def member(self, column: str, subquery: str) -> str:
        """SQL for "``column`` is one of the values ``subquery`` selects"."""
        return f"{column} IN ({subquery})"

    def prepare(self, connection: Any) -> None:
        """Run once per connection after the migrations (nothing by default)."""

    def upsert(self, cursor: Any, upsert: Upsert, rows: Sequence[tuple[Any, ...]], *, bulk: bool) -> None:
        """Write ``rows`` inside the open transaction; ``bulk``: a consumer's batch (large)
        rather than the live path's few rows. By default one statement per row (executemany)."""
        cursor.executemany(self.sql(upsert.statement()), rows)

    def fetch_together(self, connection: Any, statements: Sequence[tuple[str, tuple[Any, ...]]]) -> list[list[Any]]:
        """The rows of each of ``statements`` (independent selects) on ``connection``; by
        default one after the other."""
        results = []
        for statement, params in statements:
            cursor = connection.cursor()
            cursor.execute(statement, params)
            results.append(list(cursor.fetchall()))
        return results
