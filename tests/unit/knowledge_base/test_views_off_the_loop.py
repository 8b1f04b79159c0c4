"""A base's view is built once, by one thread, for the version it was asked at, and never on the
event loop: after an apply, the index build's thread and the readers' threads ask together."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from knowledge_base.entrypoints import http
from knowledge_base.service_layer import projection
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader

from bkn_common.framework.http import install_error_handlers


class _GatedBuild:
    """``build_view`` that says when it starts and waits for the test to let it finish."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, during: Any = None) -> None:
        self.builds = 0
        self.started = threading.Event()
        self.second = threading.Event()
        self.release = threading.Event()
        self.released_in_time = True
        self._real = projection.build_view
        self._during = during
        monkeypatch.setattr(projection, "build_view", self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.builds += 1
        (self.second if self.builds > 1 else self.started).set()
        if self._during is not None:
            self._during()
        self.released_in_time = self.release.wait(timeout=5) and self.released_in_time
        return self._real(*args, **kwargs)


def test_two_threads_asking_for_a_new_view_build_it_once(demo_state: KnowledgeState,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _GatedBuild(monkeypatch)
    views: list[Any] = []
    first = threading.Thread(target=lambda: views.append(demo_state.view("handbook")))
    first.start()
    assert gate.started.wait(timeout=5)
    second = threading.Thread(target=lambda: views.append(demo_state.view("handbook")))
    second.start()
    gate.second.wait(timeout=1)  # set only if the second thread builds too (it must wait instead)
    gate.release.set()
    first.join()
    second.join()
    assert gate.builds == 1 and views[0] is views[1] is not None


def test_a_view_is_kept_for_the_version_it_was_built_from(demo_state: KnowledgeState,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    base = demo_state.bases["handbook"]

    def the_fold_moves_on() -> None:  # an apply folded on the loop while the thread builds
        base.version += 1

    gate = _GatedBuild(monkeypatch, during=the_fold_moves_on)
    gate.release.set()
    built = demo_state.view("handbook")
    again = demo_state.view("handbook")
    assert gate.builds == 2 and again is not built


async def test_a_read_that_builds_the_view_leaves_the_event_loop_free(
        demo_state: KnowledgeState, reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = _GatedBuild(monkeypatch)
    app = FastAPI()
    install_error_handlers(app)

    async def reader_for(request: Any) -> Reader:
        return reader

    app.include_router(http.router(demo_state, None, reader_for))  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://kb") as client:
        read = asyncio.create_task(client.get("/internal/v1/knowledge-bases/handbook/files/content",
                                              params={"path": "index.md"}))
        assert await asyncio.to_thread(gate.started.wait, 5)
        gate.release.set()  # reached only while the loop runs: a build on the loop would hold it
        response = await read
    assert response.status_code == 200 and gate.released_in_time
