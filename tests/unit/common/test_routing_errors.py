"""The router's own refusals leave in the envelope like every other: an unknown path is 404
``route_not_found``, a known path with another method 405 ``method_not_allowed`` with ``Allow``,
both in the caller's language; a handler's own "not found" keeps its code."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.exceptions import HTTPException

from bkn_common.contracts.errors import ApiError, ErrorCode
from bkn_common.contracts.openapi_errors import as_openapi_error
from bkn_common.framework.http import install_error_handlers


def _client() -> TestClient:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/items/{item_id}")
    async def item(item_id: str) -> dict[str, Any]:
        if item_id == "gone":
            raise ApiError(ErrorCode.NOT_FOUND, 404, params={"reason": "no item gone"})
        return {"id": item_id}

    @app.put("/items/{item_id}")
    async def replace(item_id: str) -> dict[str, Any]:
        return {"id": item_id}

    @app.get("/teapot")
    async def teapot() -> None:
        raise HTTPException(418, "short and stout")

    return TestClient(app)


@pytest.mark.parametrize(("language", "opening"), [("en-US", "No such endpoint"), ("zh-CN", "没有这个接口")])
def test_an_unknown_path_is_route_not_found(language: str, opening: str) -> None:
    response = _client().get("/nowhere", headers={"Accept-Language": language})
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == ErrorCode.ROUTE_NOT_FOUND
    assert body["message"].startswith(opening)
    assert "/nowhere" in body["message"]
    assert body["details"] == {"method": "GET", "path": "/nowhere"}
    assert body["request_id"] == response.headers["bkn-request-id"]


def test_a_wrong_method_is_method_not_allowed_with_allow() -> None:
    response = _client().delete("/items/a1", headers={"Accept-Language": "zh-CN"})
    assert response.status_code == 405
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert allowed == {"GET", "PUT"}
    body = response.json()
    assert body["code"] == ErrorCode.METHOD_NOT_ALLOWED
    assert set(body["details"]["allowed"]) == allowed
    assert body["details"]["method"] == "DELETE"
    assert "不接受 DELETE" in body["message"]


def test_a_missing_resource_keeps_its_own_code() -> None:
    client = _client()
    assert client.get("/items/a1").json() == {"id": "a1"}
    response = client.get("/items/gone")
    assert (response.status_code, response.json()["code"]) == (404, ErrorCode.NOT_FOUND)


def test_another_http_refusal_is_an_invalid_request_with_its_status() -> None:
    response = _client().get("/teapot")
    assert response.status_code == 418
    assert response.json()["code"] == ErrorCode.INVALID_REQUEST
    assert "short and stout" in response.json()["message"]


def test_in_the_openapi_envelope_an_unknown_path_is_not_found() -> None:
    error = as_openapi_error(ApiError(ErrorCode.ROUTE_NOT_FOUND, 404, params={"method": "GET", "path": "/x"},
                                      details={"method": "GET", "path": "/x"}), "en-US")
    body = error.render("en-US", "r1")
    assert (error.status, body["error"]["code"]) == (404, "NOT_FOUND")
    assert body["error"]["details"]["meshCode"] == ErrorCode.ROUTE_NOT_FOUND


def test_in_the_openapi_envelope_a_refusal_keeps_its_response_headers() -> None:
    limited = ApiError(ErrorCode.DEPENDENCY_UNAVAILABLE, 503, params={"dependency": "redis"},
                       headers={"Retry-After": "2"})
    assert as_openapi_error(limited, "en-US").headers == {"Retry-After": "2"}
    wrong = ApiError(ErrorCode.METHOD_NOT_ALLOWED, 405, params={"method": "POST", "path": "/x", "allowed": "GET"},
                     headers={"Allow": "GET"})
    assert as_openapi_error(wrong, "zh-CN").headers == {"Allow": "GET"}
