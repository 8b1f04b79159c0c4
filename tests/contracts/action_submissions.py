"""The one contract every adapter of the gateway's ``ActionSubmissions`` port passes.

A test module subclasses :class:`ActionSubmissionsContract` and provides the fixtures
``opener`` (a callable that opens the port on the SAME storage every time it is called, fresh
storage per test) and ``elapse``. Ports opened on one storage are replicas of the gateway: a
submission taken on one is a duplicate on all of them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gateway.service_layer.ports import ActionSubmissions
from tests.contracts import Elapse

Opener = Callable[[], ActionSubmissions]
WINDOW = 60


class ActionSubmissionsContract:
    @pytest.fixture
    def opener(self) -> Opener:
        raise NotImplementedError

    async def test_the_first_claim_holds_the_fingerprint_for_every_replica(self, opener: Opener) -> None:
        one, other = opener(), opener()
        assert await one.claim("f1", "aex_1", WINDOW) is None
        assert await other.claim("f1", "aex_2", WINDOW) == "aex_1"
        assert await one.claim("f1", "aex_3", WINDOW) == "aex_1"
        assert await other.claim("f2", "aex_4", WINDOW) is None  # another submission

    async def test_only_the_holder_releases(self, opener: Opener) -> None:
        port = opener()
        assert await port.claim("f", "aex_1", WINDOW) is None
        await port.release("f", "aex_2")
        assert await port.claim("f", "aex_3", WINDOW) == "aex_1"
        await opener().release("f", "aex_1")
        assert await port.claim("f", "aex_3", WINDOW) is None
        await port.release("never-claimed", "aex_1")  # nothing to release: no error

    async def test_the_window_lapses(self, opener: Opener, elapse: Elapse) -> None:
        port = opener()
        assert await port.claim("f", "aex_1", 1) is None
        await elapse(1.5)
        assert await port.claim("f", "aex_2", WINDOW) is None
        assert await port.claim("f", "aex_3", WINDOW) == "aex_2"

    async def test_pending_markers_round_trip_on_every_replica(self, opener: Opener) -> None:
        record = {"execution_id": "aex_1", "status": "pending", "target_count": 2,
                  "targets": [{"id": 1}, {"名称": "华东"}], "parameters": {"note": None}}
        await opener().mark_pending("aex_1", record, WINDOW)
        assert await opener().pending("aex_1") == record
        assert await opener().pending("aex_2") is None

    async def test_a_pending_marker_expires(self, opener: Opener, elapse: Elapse) -> None:
        port = opener()
        await port.mark_pending("aex_1", {"execution_id": "aex_1"}, 1)
        await elapse(1.5)
        assert await port.pending("aex_1") is None
