"""The port of the data tools' SQL engine (the DuckDB adapter implements it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class TableSpec:
    """A table to serve: its rows are the CSV at ``csv_path``, with these (name, type) columns."""

    csv_path: str
    columns: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[tuple[str, str], ...]  # (name, engine type)
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool


class QueryTimedOut(Exception):
    """The statement ran past its timeout and was interrupted."""

    def __init__(self, timeout_seconds: float) -> None:
        super().__init__(f"interrupted after {timeout_seconds} s")
        self.timeout_seconds = timeout_seconds


class EngineError(Exception):
    """The engine refused the (already checked) statement, e.g. an unknown column."""


class SqlEngine(Protocol):
    def set_tables(self, tables: Mapping[str, TableSpec]) -> None: ...

    def unavailable(self, names: Sequence[str]) -> dict[str, str]: ...

    def query(self, sql: str, *, timeout_seconds: float, max_rows: int) -> QueryResult: ...

    def close(self) -> None: ...
