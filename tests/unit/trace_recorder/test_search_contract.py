"""The read API's searches on the memory and SQLite views (PostgreSQL: the integration run)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.trace_search_contract import TraceSearchContract
from trace_recorder.adapters.sqlite_view import sqlite_view
from trace_recorder.service_layer.search import decode_cursor, encode_cursor, utc_instant
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import TraceView


class TestMemorySearch(TraceSearchContract):
    @pytest.fixture
    def view(self) -> TraceView:
        return TraceStore()


class TestSqliteSearch(TraceSearchContract):
    @pytest.fixture
    def view(self, tmp_path: Path) -> Iterator[TraceView]:
        opened = sqlite_view(tmp_path / "view.sqlite3")
        yield opened
        opened.close()


def test_cursor_round_trip_and_refusal() -> None:
    position = ("2026-03-01T00:00:01+00:00", "int_1")
    assert decode_cursor(encode_cursor(position)) == position
    for bad in ("", "!!", encode_cursor(("a", "b"))[:-2] + "zz", "bm90IGEgY3Vyc29y"):
        try:
            decode_cursor(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was taken for a cursor")


def test_instants_are_normalised_to_utc() -> None:
    assert utc_instant("2026-03-01T08:00:00+08:00") == "2026-03-01T00:00:00+00:00"
    assert utc_instant("2026-03-01T00:00:00Z") == utc_instant("2026-03-01T00:00:00")
