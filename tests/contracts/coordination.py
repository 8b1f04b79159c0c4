"""The contract of trace-recorder's ``Coordination`` port (memory and Redis adapters).

Subclasses provide the fixtures ``port`` (a fresh key space per test) and ``elapse``.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.contracts import Elapse
from trace_recorder.service_layer.ports import (
    Coordination,
    CoordinationUnavailable,
    Deferred,
    OperationClaim,
)


async def claim_op(port: Coordination, key: str = "op:1", input_hash: str = "h1", *,
                   holder: str = "int_a", limit: int = 3, stored_count: int = 0,
                   stored_hash: str | None = None, ttl: int = 60,
                   counter_ttl: int = 60, deferred: Deferred | None = None) -> OperationClaim:
    claim: OperationClaim = await port.claim_operation(
        key, input_hash, in_flight_ttl=ttl, lease_key="lease", lease_holder=holder,
        lease_ttl=ttl, counter_key="n", counter_ttl=counter_ttl, limit=limit,
        stored_count=stored_count, stored_hash=stored_hash, deferred=deferred)
    return claim


def later(member: str, delay: float = 60.0, ttl: int = 600) -> Deferred:
    return Deferred(index="due", key=f"rec:{member}", member=member, record=f"record of {member}",
                    delay_seconds=delay, ttl=ttl)


class CoordinationContract:
    async def test_put_get_and_only_if_absent(self, port: Coordination) -> None:
        assert await port.get("k") is None
        assert await port.put("k", "v1")
        assert not await port.put("k", "v2", only_if_absent=True)
        assert await port.get("k") == "v1"
        await port.delete("k")
        assert await port.put("k", "v3", only_if_absent=True)

    async def test_values_expire(self, port: Coordination, elapse: Elapse) -> None:
        await port.put("short", "v", ttl=1)
        assert await port.get("short") == "v"
        await elapse(1.2)
        assert await port.get("short") is None

    async def test_claim_refresh_and_release(self, port: Coordination) -> None:
        assert await port.claim("lease", "a", 60) is None
        assert await port.claim("lease", "a", 60) is None  # refresh by the holder
        assert await port.claim("lease", "b", 60) == "a"
        await port.release("lease", "b")  # not the holder: nothing happens
        assert await port.get("lease") == "a"
        await port.release("lease", "a")
        assert await port.claim("lease", "b", 60) is None

    async def test_a_lapsed_claim_can_be_taken(self, port: Coordination, elapse: Elapse) -> None:
        assert await port.claim("lease", "a", 1) is None
        await elapse(1.2)
        assert await port.claim("lease", "b", 1) is None

    async def test_counters(self, port: Coordination) -> None:
        assert [await port.incr("n", 60) for _ in range(3)] == [1, 2, 3]
        await port.decr("n")
        assert await port.incr("n", 60) == 3

    async def test_locks_exclude_and_time_out(self, port: Coordination) -> None:
        order: list[str] = []

        async def hold(tag: str) -> None:
            async with port.lock("l", 5):
                order.append(f"{tag}-in")
                await asyncio.sleep(0.05)  # the other task tries meanwhile
                order.append(f"{tag}-out")

        await asyncio.gather(hold("a"), hold("b"))
        assert order in (["a-in", "a-out", "b-in", "b-out"], ["b-in", "b-out", "a-in", "a-out"])
        async with port.lock("l", 1):
            with pytest.raises(CoordinationUnavailable):
                async with port.lock("l", 0.1):
                    pass
        assert await port.ping()

    # ------------------------------------------------------------ claim_operation (begin)
    async def test_claim_operation_marks_leases_and_counts_a_new_one(self, port: Coordination) -> None:
        assert await claim_op(port) == OperationClaim("new", count=1)
        assert (await port.get("op:1"), await port.get("lease"), await port.get("n")) == (
            "h1", "int_a", "1")
        assert await claim_op(port, "op:2", "h2", stored_count=1) == OperationClaim("new", count=2)
        assert await port.get("n") == "2"

    async def test_claim_operation_finds_one_in_flight(self, port: Coordination) -> None:
        await claim_op(port)
        assert await claim_op(port) == OperationClaim("existing", recorded_hash="h1")
        assert await claim_op(port, input_hash="h2") == OperationClaim("conflict", recorded_hash="h1")
        assert (await port.get("op:1"), await port.get("n")) == ("h1", "1")  # counted once

    async def test_claim_operation_of_one_the_store_holds(self, port: Coordination) -> None:
        # the store's hash decides; the in-flight marker is re-armed when it has lapsed
        assert await claim_op(port, stored_hash="h1", stored_count=1) == OperationClaim(
            "existing", recorded_hash="h1")
        assert (await port.get("op:1"), await port.get("lease"), await port.get("n")) == (
            "h1", "int_a", None)
        await port.put("op:1", "h1")
        assert await claim_op(port, input_hash="h2", stored_hash="h1") == OperationClaim(
            "conflict", recorded_hash="h1")
        assert await port.get("n") is None

    async def test_claim_operation_respects_a_lease_held_by_another_interaction(
        self, port: Coordination
    ) -> None:
        assert await port.claim("lease", "int_b", 60) is None
        assert await claim_op(port) == OperationClaim("superseded", holder="int_b")
        assert (await port.get("op:1"), await port.get("n")) == (None, None)  # nothing left behind
        await port.put("op:1", "h1")  # begun by int_b's time, say, by another instance
        assert await claim_op(port) == OperationClaim("superseded", recorded_hash="h1",
                                                      holder="int_b")
        assert await claim_op(port, input_hash="h2") == OperationClaim("conflict", recorded_hash="h1")
        assert await port.get("lease") == "int_b"
        await port.release("lease", "int_b")
        assert await claim_op(port) == OperationClaim("existing", recorded_hash="h1")
        assert await port.get("lease") == "int_a"

    async def test_claim_operation_at_the_limit(self, port: Coordination) -> None:
        for n in (1, 2):
            assert (await claim_op(port, f"op:{n}", limit=2)).status == "new"
        assert await claim_op(port, "op:3", limit=2) == OperationClaim("limit")
        assert (await port.get("op:3"), await port.get("n")) == (None, "2")  # undone in the script
        # the store's count holds too: when the counter is lost, and before the lease is touched
        await port.delete("n")
        assert await claim_op(port, "op:3", limit=2, stored_count=1) == OperationClaim("new", count=1)
        assert await claim_op(port, "op:4", limit=2, stored_count=2) == OperationClaim("limit")
        await port.release("lease", "int_a")
        assert await claim_op(port, "op:4", holder="int_b", limit=2, stored_count=2) == (
            OperationClaim("limit"))
        assert (await port.get("lease"), await port.get("op:4"), await port.get("n")) == (
            None, None, "1")
        # a refusal leaves nothing that a later claim would trip over
        assert await claim_op(port, "op:4", limit=3, stored_count=1) == OperationClaim("new", count=2)

    async def test_claim_operation_sets_ttls(self, port: Coordination, elapse: Elapse) -> None:
        assert (await claim_op(port, "op:1", ttl=1, counter_ttl=1)).status == "new"
        await elapse(0.6)
        # the counter's TTL is set by its first increment only; the lease's by every claim
        assert await claim_op(port, "op:2", ttl=60, counter_ttl=60) == OperationClaim("new", count=2)
        await elapse(0.6)
        assert (await port.get("op:1"), await port.get("n")) == (None, None)
        assert (await port.get("op:2"), await port.get("lease")) == ("h1", "int_a")
        assert await claim_op(port, "op:1") == OperationClaim("new", count=1)

    async def test_a_new_claim_stores_its_deferred_record(self, port: Coordination) -> None:
        assert (await claim_op(port, "op:1", deferred=later("a"))).status == "new"
        assert await port.take_due("due", "rec:", lease_seconds=30, limit=10) == []  # not due
        assert await port.take_due("due", "rec:", lease_seconds=30, limit=10, everything=True) == [
            ("a", "record of a")]
        await port.forget("due", "rec:a", "a")
        assert await port.take_due("due", "rec:", lease_seconds=30, limit=10, everything=True) == []
        assert await port.get("rec:a") is None

    async def test_only_a_new_claim_stores_it(self, port: Coordination) -> None:
        assert (await claim_op(port, "op:1")).status == "new"
        assert (await claim_op(port, "op:1", deferred=later("a"))).status == "existing"
        assert (await claim_op(port, "op:2", holder="int_b", deferred=later("b"))).status == "superseded"
        assert (await claim_op(port, "op:3", limit=1, deferred=later("c"))).status == "limit"
        assert await port.take_due("due", "rec:", lease_seconds=30, limit=10, everything=True) == []

    async def test_a_record_falls_due_and_a_taker_leases_it(
        self, port: Coordination, elapse: Elapse,
    ) -> None:
        await claim_op(port, "op:1", deferred=later("a", delay=0.5))
        await claim_op(port, "op:2", deferred=later("b", delay=60))
        assert await port.take_due("due", "rec:", lease_seconds=1, limit=10) == []
        await elapse(0.6)
        assert await port.take_due("due", "rec:", lease_seconds=1, limit=10) == [("a", "record of a")]
        assert await port.take_due("due", "rec:", lease_seconds=1, limit=10) == []  # leased
        await elapse(1.2)  # its taker died before it forgot it: due again
        assert await port.take_due("due", "rec:", lease_seconds=1, limit=10) == [("a", "record of a")]

    async def test_an_expired_record_leaves_the_index(self, port: Coordination, elapse: Elapse) -> None:
        await claim_op(port, "op:1", deferred=later("a", ttl=1))
        await elapse(1.2)
        assert await port.take_due("due", "rec:", lease_seconds=30, limit=10, everything=True) == []
