"""The SQL engine of the data tools: DuckDB (embedded), read only, no files, no extensions.

Tables are loaded from the resources' CSV files into a database file by a short-lived loader
connection; queries run on a separate **read-only** connection to that file, opened with
external access (files, URLs) and extension installing / loading switched off and the
configuration locked, so not even a statement that got past the guard could write, read a
file or load code. When the set of resources changes the loader writes a new file and the
query connection is swapped (a version per rebuild). ``query`` is bounded: a timer interrupts
the statement at its timeout, and at most ``max_rows + 1`` rows are fetched.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb

from ontology_query.service_layer.data_ports import (
    EngineError,
    QueryResult,
    QueryTimedOut,
    TableSpec,
)

LOCKED_CONFIG: dict[str, Any] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "lock_configuration": True,
}


class DuckDbEngine:
    """:class:`~ontology_query.service_layer.data_ports.SqlEngine` over DuckDB."""

    def __init__(self, data_dir: str | None = None, threads: int = 2) -> None:
        self._dir = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="bkn-sql-"))
        self._dir.mkdir(parents=True, exist_ok=True)
        self._threads = threads
        self._lock = threading.Lock()
        self._tables: dict[str, TableSpec] = {}
        self._loaded: dict[str, TableSpec] | None = None
        self._failed: dict[str, str] = {}
        self._version = 0
        self._conn: duckdb.DuckDBPyConnection | None = None

    # -- loading --------------------------------------------------------------------------

    def set_tables(self, tables: Mapping[str, TableSpec]) -> None:
        """The tables to serve (loaded lazily, on the next query after a change)."""
        with self._lock:
            self._tables = dict(tables)

    def _ensure_loaded(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._conn is not None and self._loaded == self._tables:
                return self._conn
            self._version += 1
            path = self._dir / f"resources-{self._version}.duckdb"
            path.unlink(missing_ok=True)
            failed: dict[str, str] = {}
            with duckdb.connect(str(path)) as loader:
                for name, spec in self._tables.items():
                    try:  # one unreadable file must not take the other tables down
                        loader.execute(_create_statement(name, spec), [spec.csv_path])
                    except duckdb.Error as exc:
                        failed[name] = str(exc).splitlines()[0]
            self._failed = failed
            old, self._conn = self._conn, duckdb.connect(
                str(path), read_only=True, config={**LOCKED_CONFIG, "threads": self._threads})
            self._loaded = dict(self._tables)
            if old is not None:
                old.close()
            for stale in self._dir.glob("resources-*.duckdb"):
                if stale != path:
                    with contextlib.suppress(OSError):
                        stale.unlink()
            return self._conn

    def unavailable(self, names: Sequence[str]) -> dict[str, str]:
        """Of ``names``, the tables whose file could not be loaded, with the reason."""
        self._ensure_loaded()
        return {n: self._failed[n] for n in names if n in self._failed}

    # -- querying -------------------------------------------------------------------------

    def query(self, sql: str, *, timeout_seconds: float, max_rows: int) -> QueryResult:
        """Run one statement; interrupt it at ``timeout_seconds``; fetch ``max_rows`` at most."""
        cursor = self._ensure_loaded().cursor()
        timer = threading.Timer(timeout_seconds, cursor.interrupt)
        timer.start()
        try:
            relation = cursor.execute(sql)
            described = relation.description or []
            rows = relation.fetchmany(max_rows + 1)
        except duckdb.InterruptException as exc:
            raise QueryTimedOut(timeout_seconds) from exc
        except duckdb.Error as exc:
            raise EngineError(str(exc).splitlines()[0]) from exc
        finally:
            timer.cancel()
            cursor.close()
        return QueryResult(
            columns=tuple((str(d[0]), str(d[1])) for d in described),
            rows=tuple(tuple(r) for r in rows[:max_rows]),
            truncated=len(rows) > max_rows,
        )

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _create_statement(name: str, spec: TableSpec) -> str:
    columns = ", ".join(f"{_quote(c)}: '{t}'" for c, t in spec.columns)
    return (f"CREATE OR REPLACE TABLE {_quote(name)} AS SELECT * FROM read_csv(?, header = true, "
            f"columns = {{{columns}}}, auto_detect = false)")


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'
