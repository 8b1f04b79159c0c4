"""The gateway's ``InternalService`` port (tests/contracts/internal_service.py) on its HTTP
adapter: a real service app (the mesh's middlewares, envelope and signature check) served by
uvicorn on a free loopback port, called signed like the gateway calls it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import Request

from bkn_common.framework.service import make_service_app
from bkn_common.infra.mesh_auth import MeshSigner
from bkn_common.infra.settings import ServiceSettings
from gateway.adapters.internal import HttpServices
from gateway.service_layer.ports import InternalService
from tests.contracts.internal_service import ROUTES, InternalServiceContract
from tests.support.serving import served

SECRET = "contract-test-mesh-secret-0123456789"
UNUSED = "http://127.0.0.1:1"


def _app() -> Any:
    settings = ServiceSettings(mesh_internal_secret=SECRET)
    app = make_service_app(title="contract-service", settings=settings, resources=(), readiness={})
    for (method, path), answer in ROUTES.items():

        async def route(request: Request, answer: Any = answer) -> Any:
            return answer(await request.json())

        app.add_api_route(path, route, methods=[method])
    return app


@pytest.fixture
async def service_url() -> AsyncIterator[str]:
    async with served(_app()) as url:
        yield url


class TestHttpService(InternalServiceContract):
    @pytest.fixture
    async def service(self, service_url: str) -> AsyncIterator[InternalService]:
        services = HttpServices(capability_index=service_url, tool_executor=UNUSED, trace_recorder=UNUSED,
                                ontology_query=UNUSED, knowledge_base=UNUSED, timeout=10,
                                signer=MeshSigner(SECRET, "gateway"))
        try:
            yield services.capability_index
        finally:
            await services.close()
