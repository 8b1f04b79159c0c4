"""The TraceView contract on PostgreSQL (a schema of its own per test), and its migrations."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.trace_search_contract import TraceSearchContract
from tests.support.trace_view_contract import Opener, TraceViewContract, Turns, batch, reference
from trace_recorder.adapters.postgres_view import PostgresDialect, postgres_view
from trace_recorder.adapters.sql_schema import LATEST, migrate
from trace_recorder.service_layer.view_ports import SchemaTooNew, TraceView


@pytest.fixture
def schema(postgres: str) -> Iterator[str]:
    name = f"trace_test_{uuid.uuid4().hex[:12]}"
    yield name
    PostgresDialect(postgres, schema=name).drop_schema()


class TestPostgresView(TraceViewContract):
    @pytest.fixture
    def opener(self, postgres: str, schema: str) -> Opener:
        return lambda: postgres_view(postgres, schema=schema)


def test_an_old_postgres_view_is_upgraded_in_place(postgres: str, schema: str) -> None:
    dialect = PostgresDialect(postgres, schema=schema)
    connection = dialect.connect("writer")
    migrate(connection, dialect.ddl, lambda: dialect.transaction(connection), target=1,
            lock=dialect.lock_migrations)
    connection.close()
    events = Turns.turn(1)
    view = postgres_view(postgres, schema=schema)
    batch(view, events)
    assert view.digest() == reference(events).digest()
    view.close()
    with psycopg.connect(postgres) as check:
        version = check.execute(f"SELECT max(version) FROM {schema}.trace_schema_version").fetchone()
        indexes = {r[0] for r in check.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,))}
    assert version == (LATEST,) and "spans_end_time" in indexes


def test_a_view_from_a_newer_trace_recorder_is_refused(postgres: str, schema: str) -> None:
    postgres_view(postgres, schema=schema).close()
    with psycopg.connect(postgres, autocommit=True) as connection:
        connection.execute(f"INSERT INTO {schema}.trace_schema_version (version) VALUES (%s)", (LATEST + 1,))
    with pytest.raises(SchemaTooNew, match=f"version {LATEST + 1}"):
        postgres_view(postgres, schema=schema)


class TestPostgresSearch(TraceSearchContract):
    @pytest.fixture
    def view(self, postgres: str, schema: str) -> Iterator[TraceView]:
        opened = postgres_view(postgres, schema=schema)
        yield opened
        opened.close()
