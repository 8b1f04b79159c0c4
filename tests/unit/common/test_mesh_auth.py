"""Service identity: signing, checking, rotation, skew, replay, the guard in front of /internal/."""

from __future__ import annotations

import time

import httpx
import pytest
from fastapi import FastAPI, Request

from bkn_common.framework.service import make_service_app
from bkn_common.infra.mesh_auth import (
    MeshSecretMissing,
    MeshSigner,
    MeshVerifier,
    canonical_query,
    encode_query,
    signer_from,
    verifier_from,
)
from bkn_common.infra.mesh_client import MeshAuth
from bkn_common.infra.settings import ServiceSettings

SECRET, PREVIOUS, OTHER = "s" * 32, "p" * 32, "o" * 32
NOW = 1_800_000_000.0


class Clock:
    def __init__(self, now: float = NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def signed(secret: str = SECRET, *, at: float = NOW, body: bytes = b'{"a":1}', account: str | None = "dev",
           query: str = "", path: str = "/internal/v1/execute") -> dict[str, str]:
    return MeshSigner(secret, "gateway", Clock(at)).headers("POST", path, query=query, body=body, account=account)


def verify(headers: dict[str, str], *, body: bytes = b'{"a":1}', query: str = "", method: str = "POST",
           path: str = "/internal/v1/execute", clock: Clock | None = None,
           verifier: MeshVerifier | None = None) -> str | None:
    checker = verifier or MeshVerifier([SECRET, PREVIOUS], 30, clock or Clock())
    return checker.refusal(method, path, query, body, headers)


def test_a_signed_request_passes_with_the_current_or_the_previous_secret() -> None:
    assert verify(signed(SECRET)) is None
    assert verify(signed(PREVIOUS)) is None


def test_missing_wrong_or_malformed_credentials_are_refused() -> None:
    assert verify({}) == "missing"
    assert verify({"x-bkn-account": "dev"}) == "missing"
    assert verify(signed(OTHER)) == "bad_signature"
    assert verify({**signed(), "x-bkn-mesh-signature": "v0=abc"}) == "malformed"
    assert verify({**signed(), "x-bkn-mesh-timestamp": "soon"}) == "malformed"


@pytest.mark.parametrize("tamper", ["body", "account", "account_dropped", "query", "path", "method", "caller"])
def test_anything_signed_that_changes_breaks_the_signature(tamper: str) -> None:
    headers = signed(query="section=spans")
    kwargs: dict[str, object] = {"query": "section=spans"}
    if tamper == "body":
        kwargs["body"] = b'{"a":2}'
    elif tamper == "account":
        headers["x-bkn-account"] = "admin"
    elif tamper == "account_dropped":
        del headers["x-bkn-account"]
    elif tamper == "query":
        kwargs["query"] = "section=other"
    elif tamper == "path":
        kwargs["path"] = "/internal/v1/skills/execute"
    elif tamper == "method":
        kwargs["method"] = "PUT"
    else:
        headers["x-bkn-caller"] = "tool-executor"
    assert verify(headers, **kwargs) == "bad_signature"  # type: ignore[arg-type]


def test_timestamps_outside_the_skew_window_are_refused_both_ways() -> None:
    assert verify(signed(at=NOW - 29)) is None
    assert verify(signed(at=NOW - 31)) == "expired"  # a replayed old request
    assert verify(signed(at=NOW + 31)) == "expired"


def test_a_request_replayed_inside_the_window_is_refused() -> None:
    verifier = MeshVerifier([SECRET], 30, Clock())
    headers = signed()
    assert verify(headers, verifier=verifier) is None
    assert verify(headers, verifier=verifier) == "replayed"
    assert verify(signed(), verifier=verifier) is None  # a new nonce is a new request


def test_the_query_is_signed_in_a_canonical_order_and_encoding() -> None:
    assert canonical_query("b=2&a=x%20y") == canonical_query("a=x+y&b=2") == "a=x%20y&b=2"
    assert encode_query({"section": "spans", "a": 1}) == "a=1&section=spans"
    assert verify(signed(query="b=2&a=1"), query="a=1&b=2") is None


def test_an_unset_or_short_secret_refuses_to_start() -> None:
    with pytest.raises(MeshSecretMissing, match="MESH_INTERNAL_SECRET is not set"):
        verifier_from(ServiceSettings())
    with pytest.raises(MeshSecretMissing, match="MESH_INTERNAL_SECRET is not set"):
        signer_from(ServiceSettings(mesh_internal_secret=""))
    with pytest.raises(MeshSecretMissing, match="shorter than 16"):
        verifier_from(ServiceSettings(mesh_internal_secret="short"))
    with pytest.raises(MeshSecretMissing, match="MESH_INTERNAL_SECRET_PREVIOUS is shorter"):
        verifier_from(ServiceSettings(mesh_internal_secret=SECRET, mesh_internal_secret_previous="x"))
    with pytest.raises(MeshSecretMissing):
        make_service_app(title="t", settings=ServiceSettings(), resources=[], readiness={})


def test_secrets_come_from_the_shared_environment_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MESH_INTERNAL_SECRET", SECRET)
    monkeypatch.setenv("MESH_INTERNAL_SECRET_PREVIOUS", PREVIOUS)
    monkeypatch.setenv("MESH_INTERNAL_MAX_SKEW_SECONDS", "5")
    settings = ServiceSettings()
    assert settings.mesh_internal_max_skew_seconds == 5
    verifier = verifier_from(settings)
    assert verify(signed(PREVIOUS, at=time.time()), verifier=verifier) is None
    assert "s" * 32 not in repr(settings)  # secrets never show in a dump of the settings


# -- the guard in front of /internal/ ---------------------------------------------------------


def guarded_app(edge: bool = False) -> tuple[FastAPI, list[dict[str, object]]]:
    app = make_service_app(title="t", settings=ServiceSettings(mesh_internal_secret=SECRET),
                           resources=[], readiness={}, edge=edge)
    ran: list[dict[str, object]] = []

    @app.post("/internal/v1/echo")
    async def echo(request: Request) -> dict[str, object]:
        seen = {"account": request.headers.get("x-bkn-account"), "body": await request.json()}
        ran.append(seen)
        return seen

    @app.get("/api/public")
    async def public(request: Request) -> dict[str, object]:
        return {"internal": sorted(k for k in request.headers if k.startswith("x-bkn"))}

    return app, ran


async def client(app: FastAPI, auth: httpx.Auth | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://svc", auth=auth)


async def test_the_guard_refuses_unsigned_calls_in_the_envelope_and_runs_nothing() -> None:
    app, ran = guarded_app()
    async with await client(app) as anonymous:
        refused = await anonymous.post("/internal/v1/echo", json={"x": 1}, headers={"X-BKN-Account": "dev"})
        zh = await anonymous.post("/internal/v1/echo", json={}, headers={"Accept-Language": "zh-CN"})
        health = await anonymous.get("/healthz")
    assert refused.status_code == 401 and ran == []
    body = refused.json()
    assert body["code"] == "internal_unauthenticated" and body["details"] == {"reason": "missing"}
    assert body["request_id"] == refused.headers["bkn-request-id"]
    assert "mesh service credential" in body["message"]
    assert "网格服务凭证" in zh.json()["message"]
    assert health.status_code == 200


async def test_the_guard_passes_a_signed_call_with_its_body_and_account() -> None:
    app, ran = guarded_app()
    auth = MeshAuth(MeshSigner(SECRET, "gateway"))
    async with await client(app, auth) as mesh:
        answer = await mesh.post("/internal/v1/echo", json={"x": 1}, headers={"X-BKN-Account": "dev"})
    assert answer.status_code == 200, answer.text
    assert ran == [{"account": "dev", "body": {"x": 1}}]


async def test_the_guard_refuses_a_call_signed_for_another_account() -> None:
    app, ran = guarded_app()

    class Forged(httpx.Auth):
        requires_request_body = True

        def auth_flow(self, request: httpx.Request):  # type: ignore[no-untyped-def]
            request.headers.update(MeshSigner(SECRET, "gateway").headers(
                "POST", request.url.path, body=request.content, account="viewer"))
            request.headers["x-bkn-account"] = "admin"
            yield request

    async with await client(app, Forged()) as forged:
        refused = await forged.post("/internal/v1/echo", json={"x": 1})
    assert refused.status_code == 401 and refused.json()["details"]["reason"] == "bad_signature"
    assert ran == []


async def test_the_edge_drops_inbound_internal_headers_on_public_routes() -> None:
    forged = {"X-BKN-Account": "admin", "X-BKN-Caller": "gateway", "X-BKN-Mesh-Signature": "v1=00",
              "X-BKN-Mesh-Timestamp": "1", "X-BKN-Mesh-Nonce": "n", "X-BKN-Other": "kept"}
    edge, _ = guarded_app(edge=True)
    inner, _ = guarded_app(edge=False)
    async with await client(edge) as at_edge, await client(inner) as inside:
        assert (await at_edge.get("/api/public", headers=forged)).json() == {"internal": ["x-bkn-other"]}
        assert len((await inside.get("/api/public", headers=forged)).json()["internal"]) == 6
        assert (await at_edge.post("/internal/v1/echo", json={}, headers=forged)).status_code == 401
