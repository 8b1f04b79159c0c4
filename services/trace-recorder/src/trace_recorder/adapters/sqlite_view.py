"""The trace view in SQLite (stdlib ``sqlite3``): the embedded default, one file, one replica.

WAL journal: readers never wait for the writer, and a commit survives a killed process
(``synchronous=NORMAL``; only a power cut can lose the last commits, which the consumer then
reads again from Kafka).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from trace_recorder.adapters.sql_dialect import SqlDialect
from trace_recorder.adapters.sql_schema import Ddl
from trace_recorder.adapters.sql_view import SqlTraceView


class SqliteDialect(SqlDialect):
    ddl = Ddl(bigint="INTEGER", bool="INTEGER", double="REAL", seq="")
    insertion_order = "rowid"
    transient = (sqlite3.OperationalError,)

    def __init__(self, path: Path) -> None:
        self.path = path

    def connect(self, role: str) -> Any:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                     timeout=30)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    @contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")


def sqlite_view(path: Path) -> SqlTraceView:
    """The view in the SQLite file at ``path`` (created, and migrated, as needed)."""
    return SqlTraceView(SqliteDialect(path))
