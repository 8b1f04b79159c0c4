"""The gateway's routing refusals: the mesh envelope on its own paths, the knowledge-base API's
OpenAPI envelope under ``/openapi/v2/knowledge-bases/`` (one API speaks one envelope)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.framework.http import install_error_handlers
from gateway.entrypoints.openapi_kb import PREFIX, router, routing_refusal


def _client() -> TestClient:
    app = FastAPI()
    install_error_handlers(app)
    app.add_exception_handler(HTTPException, routing_refusal)

    @app.get(PREFIX + "/tree")
    async def tree(kb_id: str) -> dict[str, str]:
        return {"kb": kb_id}

    @app.post("/api/agent-retrieval/v1/kn/{tool_name}")
    async def tool(tool_name: str) -> dict[str, str]:
        return {"tool": tool_name}

    return TestClient(app)


def test_an_unknown_knowledge_base_path_is_not_found_in_the_openapi_envelope() -> None:
    response = _client().get("/openapi/v2/knowledge-bases/kb1/nowhere", headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 404
    error = response.json()["error"]
    assert (error["code"], error["httpStatus"]) == ("NOT_FOUND", 404)
    assert error["details"]["meshCode"] == "route_not_found"
    assert error["message"].startswith("没有这个接口")
    assert response.json()["requestId"] == response.headers["bkn-request-id"]


def test_a_wrong_method_on_the_knowledge_base_api_keeps_allow() -> None:
    response = _client().post("/openapi/v2/knowledge-bases/kb1/tree")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET"
    error = response.json()["error"]
    assert (error["code"], error["details"]["allowed"]) == ("method_not_allowed", ["GET"])


def test_elsewhere_the_mesh_envelope() -> None:
    client = _client()
    unknown = client.get("/api/agent-retrieval/v1/nowhere")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "route_not_found")
    wrong = client.get("/api/agent-retrieval/v1/kn/search_capabilities")
    assert (wrong.status_code, wrong.json()["code"], wrong.headers["allow"]) == (405, "method_not_allowed", "POST")


class _RefusingAuthentication:
    """Refuses every credential with a header the refusal must keep."""

    def authenticate(self, authorization: str | None) -> object:
        raise ApiError(ErrorCode.UNAUTHENTICATED, 401, headers={"WWW-Authenticate": 'Bearer realm="bkn"'})


def test_a_refused_knowledge_base_call_keeps_its_headers_and_request_id() -> None:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(router(None, _RefusingAuthentication()))  # type: ignore[arg-type]
    response = TestClient(app).get("/openapi/v2/knowledge-bases/kb1/tree", headers={"bkn-request-id": "req-42"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == 'Bearer realm="bkn"'
    assert response.headers["bkn-request-id"] == response.json()["requestId"] == "req-42"
