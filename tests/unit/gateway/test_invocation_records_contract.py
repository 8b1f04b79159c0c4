"""The invocation-record contract (tests/contracts/invocation_records.py) on the unit suite's
``DictIdempotency`` (Redis: tests/integration/mesh/test_invocation_records.py)."""

from __future__ import annotations

import pytest

from gateway.service_layer.ports import Idempotency
from tests.contracts import ManualClock, ManualTime
from tests.contracts.invocation_records import InvocationRecordsContract, RecordsFor
from tests.unit.gateway.fakes import DictIdempotency


class TestDictIdempotency(ManualTime, InvocationRecordsContract):
    @pytest.fixture
    def records_for(self, clock: ManualClock) -> RecordsFor:
        stores: dict[int, DictIdempotency] = {}  # one storage per TTL: the replicas of a test
        return lambda ttl: stores.setdefault(ttl, DictIdempotency(ttl, clock))

    @pytest.fixture
    def unreachable(self) -> Idempotency:
        store = DictIdempotency()
        store.available = False
        return store
