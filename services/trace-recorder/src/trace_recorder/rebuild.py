"""What operators run on trace-recorder's view outside the service: ``clctl replay
trace-recorder`` (the ``bkn.replay`` entry point, :data:`REBUILDABLE`) and ``clctl migrate
trace-recorder`` (the ``bkn.migrate`` entry point, :func:`migrate`).

A replay rebuilds into a fresh store of the configured kind (``TRACE_RECORDER_STORE``): a new
SQLite file in a temporary folder, or a new schema ``trace_replay_<random>`` in the configured
PostgreSQL, removed when the replay ends; the live view is never touched.
"""

from __future__ import annotations

import logging
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import EventRecord
from bkn_common.framework.rebuildable import Rebuildable
from trace_recorder.adapters.sql_schema import LATEST
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import ReplayTarget
from trace_recorder.settings import TraceRecorderSettings

log = logging.getLogger(__name__)


class BufferedView:
    """A view fed record by record that writes each fetched batch in one transaction."""

    def __init__(self, view: ReplayTarget) -> None:
        self.view = view
        self._pending: list[ev.Event] = []

    def apply(self, record: EventRecord) -> None:
        self._pending.append(record.event)

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        try:
            self.view.apply_events(pending)
        except Exception as exc:  # find the record the view rejects; keep the others
            log.warning("a replayed batch was rejected (%s); applying it record by record", exc)
            for event in pending:
                try:
                    self.view.apply_events([event])
                except Exception as rejected:
                    log.warning("replay skips a %s the view rejects: %s", event.type, rejected)

    def snapshot(self) -> dict[str, Any]:
        self.flush()
        return self.view.snapshot()


@contextmanager
def fresh_view(settings: TraceRecorderSettings | None = None) -> Iterator[BufferedView]:
    """An empty view of the configured kind, removed afterwards (see the module docstring)."""
    settings = settings or TraceRecorderSettings()
    if settings.store == "memory":
        yield BufferedView(TraceStore())
        return
    if settings.store == "sqlite":
        from trace_recorder.adapters.sqlite_view import sqlite_view

        with tempfile.TemporaryDirectory(prefix="trace-replay-") as folder:
            view = sqlite_view(Path(folder) / "view.sqlite3")
            try:
                yield BufferedView(view)
            finally:
                view.close()
        return
    from trace_recorder.adapters.postgres_view import PostgresDialect, postgres_view

    schema = f"trace_replay_{uuid.uuid4().hex[:12]}"
    password = settings.database_password.get_secret_value() if settings.database_password else None
    view = postgres_view(settings.database_url, password, schema)
    try:
        yield BufferedView(view)
    finally:
        view.close()
        PostgresDialect(settings.database_url, password, schema).drop_schema()


REBUILDABLE = Rebuildable(
    consumer="trace-recorder",
    open_store=fresh_view,
    default_url="http://127.0.0.1:30783",
)
"""The ``bkn.replay`` entry point: what `clctl replay trace-recorder` rebuilds."""


def migrate() -> str:
    """The ``bkn.migrate`` entry point: bring the configured view to the newest schema."""
    from trace_recorder.bootstrap import open_view

    settings = TraceRecorderSettings()
    if settings.store == "memory":
        return "the memory store has no schema"
    view = open_view(settings)  # opening migrates (and refuses a newer schema)
    view.close()
    return f"trace-recorder's {settings.store} view is at schema version {LATEST}"
