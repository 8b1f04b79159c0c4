"""The port's contract (tests/contracts/internal_service.py) on the unit tests' fake."""

from __future__ import annotations

import pytest

from gateway.service_layer.ports import InternalService
from tests.contracts.internal_service import ROUTES, InternalServiceContract
from tests.unit.gateway.fakes import FakeService


class TestFakeService(InternalServiceContract):
    @pytest.fixture
    def service(self) -> InternalService:
        fake = FakeService("contract")
        for (method, path), answer in ROUTES.items():
            fake.on(method, path, answer)
        return fake
