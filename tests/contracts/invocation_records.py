"""The contract of the gateway's ``Idempotency`` port: invocation-id records (the unit suite's
``DictIdempotency`` and ``RedisIdempotency``).

Subclasses provide the fixtures ``records_for`` (a callable opening the port with the given
record TTL in seconds, on the SAME fresh storage every time it is called), ``unreachable`` (the
port with its store away) and ``elapse``. Two ports opened by ``records_for`` are two gateway
replicas.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.service_layer.ports import LEGACY_FAILURE, Claim, Idempotency
from tests.contracts import Elapse

RecordsFor = Callable[[int], Idempotency]
FAILURE = {"code": "upstream_timeout", "status": 504, "params": {"timeout": "5"}}
OUTCOME: dict[str, Any] = {"data": {"rows": [1, "二", None], "ok": True}, "receipt": None,
                           "headers": {"bkn-receipt-id": "r"}}
ID = ("dev", "execute_tool", "inv-1")


def seen(claim: Claim | None) -> tuple[object, ...] | None:
    """What a caller branches on, in one comparable value."""
    if claim is None:
        return None
    return (claim.state, claim.input_hash, claim.result, claim.error, claim.attempt)


class InvocationRecordsContract:
    @pytest.fixture
    def records(self, records_for: RecordsFor) -> Idempotency:
        return records_for(60)

    # ------------------------------------------------------------------ claim
    async def test_a_new_id_is_fresh_then_running_for_every_input(self, records: Idempotency) -> None:
        assert seen(await records.claim(*ID, "h")) == ("fresh", "h", None, None, 0)
        assert seen(await records.claim(*ID, "h")) == ("running", "h", None, None, 0)
        # another input sees the first call's hash: the caller's 409 idempotency_conflict
        assert seen(await records.claim(*ID, "h2")) == ("running", "h", None, None, 0)

    async def test_an_id_is_per_account_and_tool(self, records: Idempotency) -> None:
        await records.claim(*ID, "h")
        await records.complete(*ID, "h", OUTCOME)
        assert (await records.claim("other", "execute_tool", "inv-1", "h")).state == "fresh"
        assert (await records.claim("dev", "execute_action", "inv-1", "h")).state == "fresh"
        assert (await records.claim("dev", "execute_tool", "inv-2", "h")).state == "fresh"
        assert (await records.claim(*ID, "h")).state == "done"

    async def test_of_concurrent_claims_one_is_fresh(self, records_for: RecordsFor) -> None:
        replicas = [records_for(60) for _ in range(2)]
        claims = await asyncio.gather(*(replicas[n % 2].claim(*ID, "h") for n in range(8)))
        assert sorted(c.state for c in claims) == ["fresh"] + ["running"] * 7

    # ------------------------------------------------------------------ done and failed
    async def test_a_done_call_answers_its_outcome_again_on_every_replica(self, records_for: RecordsFor) -> None:
        one, other = records_for(60), records_for(60)
        await one.claim(*ID, "h")
        outcome: Any = json.loads(json.dumps(OUTCOME))
        await one.complete(*ID, "h", outcome)
        outcome["data"]["ok"] = False  # the record is a copy, as stored
        assert seen(await other.claim(*ID, "h")) == ("done", "h", OUTCOME, None, 0)
        assert seen(await other.claim(*ID, "h2")) == ("done", "h", OUTCOME, None, 0)  # its hash

    async def test_a_failed_call_answers_its_failure_again(self, records: Idempotency) -> None:
        await records.claim(*ID, "h")
        await records.fail(*ID, "h", FAILURE)
        assert seen(await records.claim(*ID, "h")) == ("failed", "h", None, FAILURE, 0)
        assert seen(await records.claim(*ID, "h2")) == ("failed", "h", None, FAILURE, 0)

    async def test_a_failure_stored_the_earlier_way_is_read_as_failed(self, records: Idempotency) -> None:
        """Before the failed state a failure after the call may have acted was stored as a done
        record whose outcome held it; an upgraded gateway reads it as the failure it is."""
        await records.claim(*ID, "h")
        await records.complete(*ID, "h", {"data": {LEGACY_FAILURE: FAILURE}})
        assert seen(await records.claim(*ID, "h")) == ("failed", "h", None, FAILURE, 0)
        assert seen(await records.wait_done(*ID, timeout=5)) == ("failed", "h", None, FAILURE, 0)

    # ------------------------------------------------------------------ release (retryable)
    async def test_a_released_id_is_fresh_again_one_attempt_further(self, records: Idempotency) -> None:
        await records.claim(*ID, "h")
        await records.release(*ID)
        assert seen(await records.claim(*ID, "h2")) == ("fresh", "h2", None, None, 1)  # any input
        assert seen(await records.claim(*ID, "h")) == ("running", "h2", None, None, 1)
        await records.release(*ID)
        await records.release(*ID)  # released already: still one attempt further, not two
        assert seen(await records.claim(*ID, "h2")) == ("fresh", "h2", None, None, 2)
        await records.complete(*ID, "h2", OUTCOME)
        assert (await records.claim(*ID, "h2")).state == "done"

    async def test_only_a_running_record_is_released(self, records: Idempotency) -> None:
        await records.release(*ID)  # no record: nothing happens
        assert seen(await records.claim(*ID, "h")) == ("fresh", "h", None, None, 0)
        await records.complete(*ID, "h", OUTCOME)
        await records.release(*ID)
        assert (await records.claim(*ID, "h")).state == "done"
        await records.claim("dev", "execute_tool", "inv-2", "h")
        await records.fail("dev", "execute_tool", "inv-2", "h", FAILURE)
        await records.release("dev", "execute_tool", "inv-2")
        assert (await records.claim("dev", "execute_tool", "inv-2", "h")).state == "failed"

    # ------------------------------------------------------------------ wait_done
    async def test_a_waiting_retry_sees_the_outcome_or_the_failure(self, records_for: RecordsFor) -> None:
        one, other = records_for(60), records_for(60)
        for invocation, end in (("inv-1", "complete"), ("inv-2", "fail")):
            await one.claim("dev", "execute_tool", invocation, "h")
            waiting = asyncio.create_task(other.wait_done("dev", "execute_tool", invocation, timeout=30))
            await asyncio.sleep(0)  # let it look (whether it saw the call running or ended, same answer)
            if end == "complete":
                await one.complete("dev", "execute_tool", invocation, "h", OUTCOME)
                assert seen(await waiting) == ("done", "h", OUTCOME, None, 0)
            else:
                await one.fail("dev", "execute_tool", invocation, "h", FAILURE)
                assert seen(await waiting) == ("failed", "h", None, FAILURE, 0)

    async def test_a_waiting_retry_stops_waiting_when_the_id_is_released(self, records: Idempotency) -> None:
        await records.claim(*ID, "h")
        waiting = asyncio.create_task(records.wait_done(*ID, timeout=30))
        await asyncio.sleep(0)
        await records.release(*ID)
        assert await waiting is None

    async def test_a_wait_ends_at_once_without_a_running_call_and_at_its_timeout_with_one(
        self, records: Idempotency
    ) -> None:
        assert await records.wait_done(*ID, timeout=30) is None  # no record
        await records.claim(*ID, "h")
        assert await records.wait_done(*ID, timeout=0.2) is None  # still running
        await records.release(*ID)
        assert await records.wait_done(*ID, timeout=30) is None  # retryable: nothing to wait for
        await records.claim(*ID, "h")
        await records.complete(*ID, "h", OUTCOME)
        assert seen(await records.wait_done(*ID, timeout=30)) == ("done", "h", OUTCOME, None, 0)

    # ------------------------------------------------------------------ lifetime
    async def test_a_record_lives_its_ttl(self, records_for: RecordsFor, elapse: Elapse) -> None:
        records = records_for(1)
        await records.claim(*ID, "h")  # a call whose gateway died mid-call: running until its TTL
        await records.claim("dev", "execute_tool", "inv-2", "h")
        await records.complete("dev", "execute_tool", "inv-2", "h", OUTCOME)
        await elapse(1.3)
        assert seen(await records.claim(*ID, "h2")) == ("fresh", "h2", None, None, 0)
        assert seen(await records.claim("dev", "execute_tool", "inv-2", "h2")) == ("fresh", "h2", None, None, 0)

    async def test_an_end_renews_the_lifetime_and_a_release_keeps_it(
        self, records_for: RecordsFor, elapse: Elapse
    ) -> None:
        records = records_for(3)
        await records.claim(*ID, "h")
        await records.claim("dev", "execute_tool", "inv-2", "h")
        await elapse(2.2)
        await records.fail(*ID, "h", FAILURE)  # a new lifetime from now
        await records.release("dev", "execute_tool", "inv-2")  # the claim's lifetime
        await elapse(1.2)  # past the claims' 3 s, well within the failure's
        assert (await records.claim(*ID, "h")).state == "failed"
        assert seen(await records.claim("dev", "execute_tool", "inv-2", "h")) == ("fresh", "h", None, None, 0)

    # ------------------------------------------------------------------ the store away
    async def test_without_its_store_a_read_is_a_503_and_a_write_is_no_error(self, unreachable: Idempotency) -> None:
        for read in (unreachable.claim(*ID, "h"), unreachable.wait_done(*ID, timeout=1)):
            with pytest.raises(ApiError) as refused:
                await read
            assert (refused.value.code, refused.value.status, refused.value.params) == (
                ErrorCode.DEPENDENCY_UNAVAILABLE, 503, {"dependency": "redis"})
        # after the call: logged, never raised (the caller gets the call's own answer)
        await unreachable.complete(*ID, "h", OUTCOME)
        await unreachable.fail(*ID, "h", FAILURE)
        await unreachable.release(*ID)
