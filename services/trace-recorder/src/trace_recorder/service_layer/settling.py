"""Finishing a turn waits for its operations, wherever they began.

An operation begun through one gateway replica may still be completing when
``bkn_finish_interaction`` reaches another replica (behind a load balancer, the normal case),
and with several trace-recorder replicas its records may not have reached this one's store
yet. The coordination store knows how many operations the interaction claimed on every
replica (``opcount:<interaction_id>``, counted by the begin claim); the store knows which of
them have their final record. ``settle`` waits, up to ``Policy.finish_wait_seconds``, until
the store holds at least as many operations as were claimed and none of them is still
pending (an abandoned one, past the pending timeout, is not waited for).
"""

from __future__ import annotations

import asyncio
import time

from trace_recorder.domain.rules import abandoned
from trace_recorder.service_layer.keys import Keys
from trace_recorder.service_layer.recording import Core

_FIRST_POLL, _LONGEST_POLL = 0.005, 0.05


async def settle(core: Core, interaction_id: str) -> bool:
    """Wait (bounded) until every operation of the interaction has landed; True if they did."""
    deadline = time.monotonic() + core.policy.finish_wait_seconds
    delay = _FIRST_POLL
    while not await settled(core, interaction_id):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 2, _LONGEST_POLL)
    return True


async def unlanded(core: Core, interaction_id: str) -> int:
    """How many operations the interaction claimed that the store does not hold yet (begun
    on a replica whose records have not reached this one, or whose pending record is still
    deferred): at a finish that did not settle they count as pending."""
    claimed = int(await core.coordination.get(Keys.op_count(interaction_id)) or 0)
    return max(0, claimed - core.store.operation_count(interaction_id))


async def settled(core: Core, interaction_id: str) -> bool:
    """Whether every operation claimed for the interaction has its final record here."""
    claimed = int(await core.coordination.get(Keys.op_count(interaction_id)) or 0)
    operations = core.store.operations_of(interaction_id)
    if len(operations) < claimed:
        return False
    now, timeout = core.clock(), core.policy.pending_timeout_seconds
    return all(op.final or abandoned(op, now, timeout) for op in operations)
