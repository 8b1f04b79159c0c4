"""The TraceCore contract (tests/contracts/trace_core.py) on the unit suite's ``OperationLog``
(a real trace-recorder behind ``RemoteTraceCore``:
tests/integration/trace/recorder/test_trace_core_contract.py)."""

from __future__ import annotations

import pytest

from gateway.service_layer.ports import TraceCore
from tests.contracts.trace_core import TraceCoreContract
from tests.unit.gateway.fakes import OperationLog


class TestOperationLog(TraceCoreContract):
    @pytest.fixture
    def core(self) -> TraceCore:
        return OperationLog()
