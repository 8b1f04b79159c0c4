"""The console without a mesh: login and its cookie, CSRF, the bearer header of a proxy, the
CSP on every page, escaping of hostile trace content, the timeline's bars, both languages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bkn_common.contracts.errors import ApiError
from bkn_common.framework.http import install_error_handlers
from gateway.adapters.identity import Authenticator
from gateway.adapters.memory_console_sessions import MemoryConsoleSessions
from gateway.domain.identity import hash_app_key, new_app_key
from gateway.entrypoints.console import routes as console
from gateway.service_layer.observability import Observability
from gateway.settings import GatewaySettings

HOSTILE = "<script>alert('x')</script>"
OPS = [
    {"operation_id": "op_1", "tool_name": "execute_tool", "receipt_status": "completed",
     "begun_at": "2026-03-01T00:00:00.100000+00:00", "completed_at": "2026-03-01T00:00:00.300000+00:00",
     "receipt_id": "rcpt_1", "evidence_durability": "durable", "input_hash": "h1",
     "execution_receipts": [{"receipt_id": "exec_1", "tool_id": HOSTILE}],
     "evidence": [{"evidence_type": "execution", "attributes": {"arguments": HOSTILE}}]},
    {"operation_id": "op_2", "tool_name": "execute_tool", "receipt_status": "failed",
     "begun_at": "2026-03-01T00:00:00.400000+00:00", "completed_at": "2026-03-01T00:00:00.500000+00:00",
     "receipt_id": "rcpt_2", "evidence_durability": "durable", "input_hash": "h2",
     "execution_receipts": [], "evidence": []},
]
INTERACTION = {
    "interaction_id": "int_1", "conversation_id": "conv_1", "account": "alice", "agent_name": "agent",
    "question": f"What about {HOSTILE}?", "answer": "42", "status": "finished", "outcome": "completed",
    "execution_status": "partial", "evidence_status": "complete",
    "started_at": "2026-03-01T00:00:00+00:00", "finished_at": "2026-03-01T00:00:00.600000+00:00",
    "operations": OPS,
    "spans": [{"trace_id": "t", "span_id": "s1", "parent_span_id": None, "name": HOSTILE,
               "service_name": "gateway", "kind": "server", "start_time_unix_nano": 1,
               "end_time_unix_nano": 2, "status": "ok", "attributes": {}, "duration_ms": 0.1}],
}


class FakeTrace:
    name = "trace-recorder"

    async def call(self, method: str, path: str, **kw: Any) -> Any:
        if path == "/internal/v1/interactions/int_1":
            return INTERACTION
        if path == "/internal/v1/observability/interactions":
            return {"items": [{**INTERACTION, "operations": 2}], "next_cursor": None}
        raise ApiError("interaction_not_found", 404, params={"interaction_id": path.rsplit("/", 1)[-1]})


class FakeStats:
    async def projections(self) -> list[dict[str, Any]]:
        return [{"service": "trace-recorder", "reachable": True, "ready": True, "caught_up": True,
                 "lag": 0, "applied": 3, "dead_lettered": 0, "checkpoint": None,
                 "replay_command": "clctl replay trace-recorder --verify"}]

    async def dead_letters(self, limit: int) -> list[dict[str, Any]]:
        return [{"consumer": "trace-recorder", "topic": "bkn.dlq.trace-recorder.v1",
                 "dead_lettered_since_start": 1, "records": [
                     {"offset": 0, "reason": HOSTILE, "source_topic": "bkn.trace.v1",
                      "source_partition": 0, "source_offset": 7, "first_bytes": HOSTILE}]}]


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, str]:
    return {"operator": new_app_key(), "alice": new_app_key()}


@pytest.fixture
def client(tmp_path: Path, keys: dict[str, str]) -> TestClient:
    identity = tmp_path / "identity.yaml"
    identity.write_text(
        "accounts:\n"
        f"  - id: sre\n    roles: [operator]\n    app_keys: [{{key_id: o, sha256: {hash_app_key(keys['operator'])}}}]\n"
        f"  - id: alice\n    app_keys: [{{key_id: a, sha256: {hash_app_key(keys['alice'])}}}]\n")
    from fastapi import FastAPI

    app = FastAPI()
    install_error_handlers(app)
    auth = Authenticator(GatewaySettings(identity_file=str(identity)))
    app.include_router(console.router(Observability(FakeTrace(), FakeStats()), auth,  # type: ignore[arg-type]
                                      MemoryConsoleSessions(), 3600))
    return TestClient(app, base_url="http://testserver", follow_redirects=False)


def _login(client: TestClient, key: str, **headers: str) -> Any:
    form = client.get("/console/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert csrf
    return client.post("/console/login", data={"csrf": csrf.group(1), "app_key": key}, headers=headers)


def test_pages_need_a_login_and_carry_the_csp(client: TestClient) -> None:
    for home in ("/console", "/console/"):
        assert client.get(home).headers["location"] == "/console/interactions"
    for path in ("/console/interactions", "/console/interactions/int_1", "/console/projections"):
        response = client.get(path)
        assert response.status_code == 303 and response.headers["location"] == "/console/login"
    login = client.get("/console/login")
    assert "script-src 'self'" in login.headers["content-security-policy"]
    assert "'unsafe-inline'" not in login.headers["content-security-policy"]
    assert "<script src=\"/console/static/console.js\"" in login.text and "<script>" not in login.text


def test_login_opens_a_strict_http_only_session(client: TestClient, keys: dict[str, str]) -> None:
    response = _login(client, keys["operator"])
    assert response.status_code == 303 and response.headers["location"] == "/console/interactions"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("bkn_console="))
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/console" in cookie
    assert "Secure" not in cookie  # plain HTTP here
    page = client.get("/console/interactions")
    assert page.status_code == 200 and "int_1" in page.text


def test_the_cookie_is_secure_behind_tls(client: TestClient, keys: dict[str, str]) -> None:
    response = _login(client, keys["operator"], **{"X-Forwarded-Proto": "https"})
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("bkn_console="))
    assert "Secure" in cookie


def test_login_refusals(client: TestClient, keys: dict[str, str]) -> None:
    assert _login(client, "bak_wrong").status_code == 401
    assert _login(client, keys["alice"]).status_code == 403  # no operator role
    client.get("/console/login")
    forged = client.post("/console/login", data={"csrf": "guess", "app_key": keys["operator"]})
    assert forged.status_code == 403 and "permission_denied" in forged.text
    cross = _login(client, keys["operator"], Origin="https://evil.example")
    assert cross.status_code == 403


def test_logout_needs_the_sessions_csrf_token(client: TestClient, keys: dict[str, str]) -> None:
    _login(client, keys["operator"])
    page = client.get("/console/interactions").text
    token = re.search(r'action="/console/logout".*?name="csrf" value="([^"]+)"', page, re.S)
    assert token
    assert client.post("/console/logout", data={"csrf": "wrong"}).status_code == 403
    assert client.post("/console/logout", data={"csrf": token.group(1)}).status_code == 303
    assert client.get("/console/interactions").status_code == 303


def test_a_proxy_bearer_header_is_a_login(client: TestClient, keys: dict[str, str]) -> None:
    page = client.get("/console/projections", headers={"Authorization": f"Bearer {keys['operator']}"})
    assert page.status_code == 200 and "clctl replay trace-recorder --verify" in page.text
    refused = client.get("/console/projections", headers={"Authorization": f"Bearer {keys['alice']}"})
    assert refused.status_code == 403 and "permission_denied" in refused.text
    assert "content-security-policy" in refused.headers


def test_hostile_trace_content_stays_text(client: TestClient, keys: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {keys['operator']}"}
    for path in ("/console/interactions/int_1", "/console/interactions", "/console/dead-letters"):
        page = client.get(path, headers=headers)
        assert page.status_code == 200
        assert "<script>alert" not in page.text
        assert "&lt;script&gt;alert(" in page.text


def test_the_timeline_has_a_bar_per_operation_coloured_by_outcome(client: TestClient, keys: dict[str, str]) -> None:
    page = client.get("/console/interactions/int_1", headers={"Authorization": f"Bearer {keys['operator']}"})
    bars = re.findall(r'<rect class="bar (\w+)" data-operation="(\w+)"', page.text)
    assert bars == [("completed", "op_1"), ("failed", "op_2")]
    assert 'id="op-op_1"' in page.text and "exec_1" in page.text  # receipt behind a <details>
    assert "partial" in page.text and "42" in page.text


def test_both_languages(client: TestClient, keys: dict[str, str]) -> None:
    bearer = {"Authorization": f"Bearer {keys['operator']}"}
    english = client.get("/console/interactions", headers={**bearer, "Accept-Language": "en-US"}).text
    chinese = client.get("/console/interactions", headers={**bearer, "Accept-Language": "zh-CN"}).text
    assert "Interactions" in english and "交互" in chinese and 'lang="zh-CN"' in chinese


def test_a_missing_interaction_is_an_error_page(client: TestClient, keys: dict[str, str]) -> None:
    page = client.get("/console/interactions/int_nope", headers={"Authorization": f"Bearer {keys['operator']}",
                                                                  "Accept-Language": "en-US"})
    assert page.status_code == 404 and "interaction_not_found" in page.text


def test_static_files_only_the_known_ones(client: TestClient) -> None:
    assert client.get("/console/static/console.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/console/static/../settings.py").status_code == 404


def test_live_rows_are_a_fragment_of_the_same_list(client: TestClient, keys: dict[str, str]) -> None:
    bearer = {"Authorization": f"Bearer {keys['operator']}"}
    page = client.get("/console/interactions", params={"agent": "agent"}, headers=bearer)
    live = re.search(r'data-live="([^"]+)"', page.text)
    assert live and "partial=rows" in live.group(1) and "agent=agent" in live.group(1)
    rows = client.get(live.group(1).replace("&amp;", "&"), headers=bearer)
    assert rows.text.lstrip().startswith("<tr") and "int_1" in rows.text and "<html" not in rows.text


def test_the_bundle_link_works_with_the_session(client: TestClient, keys: dict[str, str]) -> None:
    _login(client, keys["operator"])
    page = client.get("/console/interactions/int_1").text
    assert 'href="/console/interactions/int_1/bundle"' in page
    refused = client.get("/console/interactions/int_1/bundle")  # this fake trace-recorder has none
    assert refused.status_code == 404 and "content-security-policy" in refused.headers
