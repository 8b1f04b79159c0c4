"""The one contract every adapter of the gateway's ``SessionStore`` port passes.

A test module subclasses :class:`SessionStoreContract` and provides the fixtures ``opener`` (a
callable that opens a store on the SAME storage every time it is called, fresh storage per
test, with the session lifetime it is given) and ``elapse``. Stores opened on one storage are
replicas of the gateway: a session created by one is valid, and terminated, on all of them.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gateway.service_layer.ports import SessionStore
from tests.contracts import Elapse

Opener = Callable[[int], SessionStore]
DAY = 24 * 3600


class SessionStoreContract:
    @pytest.fixture
    def opener(self) -> Opener:
        raise NotImplementedError

    async def test_a_session_is_valid_for_its_account_and_endpoint_only(self, opener: Opener) -> None:
        store = opener(DAY)
        session = await store.create("alice", "full", "2025-11-25")
        assert await store.valid(session, "alice", "full")
        assert not await store.valid(session, "bob", "full")
        assert not await store.valid(session, "alice", "compact")
        assert await store.valid(session, "alice", "full")  # a refused check ends nothing

    async def test_every_replica_sees_every_session(self, opener: Opener) -> None:
        one, other = opener(DAY), opener(DAY)
        session = await one.create("alice", "compact", None)
        assert await other.valid(session, "alice", "compact")
        assert await other.terminate(session)
        assert not await one.valid(session, "alice", "compact")

    async def test_ids_are_new_and_unguessable(self, opener: Opener) -> None:
        store = opener(DAY)
        ids = {await store.create("alice", "full", None) for _ in range(50)}
        assert len(ids) == 50
        assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)

    async def test_unknown_and_terminated_sessions(self, opener: Opener) -> None:
        store = opener(DAY)
        assert not await store.valid("0" * 32, "alice", "full")
        assert not await store.terminate("0" * 32)
        session = await store.create("alice", "full", None)
        assert await store.terminate(session)
        assert not await store.valid(session, "alice", "full")
        assert not await store.terminate(session)

    async def test_a_session_unused_for_its_lifetime_is_gone(self, opener: Opener, elapse: Elapse) -> None:
        store = opener(1)
        session = await store.create("alice", "full", None)
        await elapse(1.5)
        assert not await store.valid(session, "alice", "full")
        assert not await store.terminate(session)
