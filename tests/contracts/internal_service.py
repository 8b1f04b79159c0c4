"""The one contract every adapter of the gateway's ``InternalService`` port passes.

A test module subclasses :class:`InternalServiceContract` and provides the ``service``
fixture: an ``InternalService`` whose other end answers :data:`ROUTES` (an internal service
over HTTP, or the unit tests' fake with the same routes) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.service_layer.ports import InternalService


def echo(body: Any) -> Any:
    return {"echo": body}


def conflict(body: Any) -> Any:
    raise ApiError(ErrorCode.IDEMPOTENCY_CONFLICT, 409, details={"seen": body["id"]})


ROUTES: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("POST", "/internal/v1/echo"): echo,
    ("POST", "/internal/v1/conflict"): conflict,
}
"""What the service on the other end answers: a function of the JSON body."""


class InternalServiceContract:
    @pytest.fixture
    def service(self) -> InternalService:
        raise NotImplementedError

    async def test_contract_an_answer_is_the_json_the_service_returned(self, service: InternalService) -> None:
        body = {"id": "a1", "text": "供应商 invoice", "n": [1, 2.5, None, True]}
        assert await service.call("POST", "/internal/v1/echo", json=body, account="dev") == {"echo": body}

    async def test_contract_a_refusal_keeps_its_code_status_and_details(self, service: InternalService) -> None:
        with pytest.raises(ApiError) as refused:
            await service.call("POST", "/internal/v1/conflict", json={"id": "a2"}, account="dev")
        assert (refused.value.code, refused.value.status) == (ErrorCode.IDEMPOTENCY_CONFLICT, 409)
        assert refused.value.details == {"seen": "a2"}

    async def test_contract_a_route_the_service_lacks_is_the_dependency_unavailable(
        self, service: InternalService,
    ) -> None:
        """A bare 404 is no refusal of the service (no envelope): a gateway newer than the
        service it calls, mid-upgrade. The caller sees the dependency as unavailable, never a
        "not found" about its own request."""
        with pytest.raises(ApiError) as refused:
            await service.call("POST", "/internal/v1/nowhere", json={}, account="dev")
        assert (refused.value.code, refused.value.status) == (ErrorCode.DEPENDENCY_UNAVAILABLE, 503)
        assert refused.value.details == {"dependency": service.name, "status": 404}
