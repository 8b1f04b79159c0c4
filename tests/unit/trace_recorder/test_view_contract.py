"""The TraceView contract on the memory and SQLite adapters (PostgreSQL: the integration run),
and SQLite's schema migrations."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bkn_common.contracts.events import decode_event, encode_event
from clctl.cli import app
from tests.support.trace_view_contract import Opener, TraceViewContract, Turns, batch, reference
from trace_recorder.adapters.sql_schema import LATEST, migrate
from trace_recorder.adapters.sqlite_view import SqliteDialect, sqlite_view
from trace_recorder.rebuild import fresh_view
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import SchemaTooNew
from trace_recorder.settings import TraceRecorderSettings


class TestMemoryView(TraceViewContract):
    durable = False

    @pytest.fixture
    def opener(self) -> Opener:
        return TraceStore


class TestSqliteView(TraceViewContract):
    @pytest.fixture
    def opener(self, tmp_path: Path) -> Opener:
        return lambda: sqlite_view(tmp_path / "view.sqlite3")


def test_an_old_sqlite_view_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    dialect = SqliteDialect(path)
    connection = dialect.connect("writer")
    migrate(connection, dialect.ddl, lambda: dialect.transaction(connection), target=1)
    connection.close()
    events = Turns.turn(1)
    batch(view := sqlite_view(path), events)  # opening it migrates to the newest version
    assert view.digest() == reference(events).digest()
    view.close()
    with sqlite3.connect(path) as check:
        assert check.execute("SELECT max(version) FROM trace_schema_version").fetchone() == (LATEST,)
        indexes = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "spans_end_time" in indexes


def test_a_view_from_a_newer_trace_recorder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    sqlite_view(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO trace_schema_version (version) VALUES (?)", (LATEST + 1,))
    with pytest.raises(SchemaTooNew, match=f"version {LATEST + 1}"):
        sqlite_view(path)


def test_replay_rebuilds_into_a_fresh_file_that_it_removes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    live = tmp_path / "live.sqlite3"
    events = Turns.turn(1) + Turns.turn(2)
    with fresh_view(TraceRecorderSettings(store="sqlite", sqlite_path=live)) as rebuilt:
        for event in events:
            rebuilt.apply(decode_event(encode_event(event)))
        rebuilt.flush()
        assert rebuilt.snapshot() == reference(events).snapshot()
        assert next(p.name for p in scratch.iterdir()).startswith("trace-replay-")
    assert list(scratch.iterdir()) == []
    assert not live.exists()  # the live view is never opened


def test_clctl_migrate_brings_the_configured_view_to_the_newest_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.sqlite3"
    monkeypatch.setenv("TRACE_RECORDER_STORE", "sqlite")
    monkeypatch.setenv("TRACE_RECORDER_SQLITE_PATH", str(path))
    result = CliRunner().invoke(app, ["migrate", "trace-recorder"])
    assert result.exit_code == 0, result.output
    assert f"schema version {LATEST}" in result.output
    with sqlite3.connect(path) as check:
        check.execute("INSERT INTO trace_schema_version (version) VALUES (?)", (LATEST + 1,))
    refused = CliRunner().invoke(app, ["migrate", "trace-recorder"])
    assert refused.exit_code == 1 and f"version {LATEST + 1}" in refused.output
