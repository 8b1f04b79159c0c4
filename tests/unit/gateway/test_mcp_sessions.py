"""The MCP endpoint's session checks on the memory session store: a session is its owner's on
its endpoint only, DELETE ends it, and an unknown or foreign one is a 404 on every request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from gateway.adapters.identity import Authenticator
from gateway.adapters.sessions import MemorySessionStore
from gateway.domain.identity import hash_app_key, new_app_key
from gateway.entrypoints.mcp_http import SESSION_HEADER, McpEndpointApp
from gateway.settings import GatewaySettings

KEYS = {"alice": new_app_key(), "bob": new_app_key()}


class NoSdk:
    """The SDK's manager: these requests must never reach it."""

    async def handle_request(self, *args: Any) -> None:
        raise AssertionError("request reached the SDK")


@pytest.fixture
def sessions() -> MemorySessionStore:
    return MemorySessionStore()


@pytest.fixture
def client(tmp_path: Path, sessions: MemorySessionStore) -> TestClient:
    identity = tmp_path / "identity.yaml"
    identity.write_text("accounts:\n" + "".join(
        f"  - id: {account}\n    kind: user\n    app_keys:\n      - key_id: {account}1\n"
        f"        sha256: {hash_app_key(key)}\n" for account, key in KEYS.items()))
    settings = GatewaySettings(identity_file=str(identity))
    endpoint = McpEndpointApp("full", NoSdk(), sessions, Authenticator(settings), settings)  # type: ignore[arg-type]
    return TestClient(Starlette(routes=[Route("/mcp", endpoint=endpoint, methods=["GET", "POST", "DELETE"])]))


def headers(account: str, session: str | None = None) -> dict[str, str]:
    out = {"authorization": f"Bearer {KEYS[account]}"}
    if session is not None:
        out[SESSION_HEADER] = session
    return out


CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


async def test_delete_ends_the_owners_session_only(client: TestClient, sessions: MemorySessionStore) -> None:
    session = await sessions.create("alice", "full", None)
    assert client.delete("/mcp", headers=headers("bob", session)).status_code == 404
    assert await sessions.valid(session, "alice", "full")
    assert client.delete("/mcp", headers=headers("alice", session)).status_code == 200
    assert not await sessions.valid(session, "alice", "full")
    assert client.delete("/mcp", headers=headers("alice", session)).status_code == 404
    assert client.delete("/mcp", headers=headers("alice")).status_code == 404  # no session named


@pytest.mark.parametrize(("owner", "endpoint"), [("bob", "full"), ("alice", "compact"), (None, None)])
async def test_a_foreign_or_unknown_session_is_not_found(
    client: TestClient, sessions: MemorySessionStore, owner: str | None, endpoint: str | None
) -> None:
    session = "0" * 32 if owner is None else await sessions.create(owner, str(endpoint), None)
    response = client.post("/mcp", json=CALL, headers=headers("alice", session))
    assert response.status_code == 404
    assert response.json()["error"] == {"code": -32001, "message": "Session not found"}


def test_no_credential_is_a_401_before_any_session_check(client: TestClient) -> None:
    response = client.post("/mcp", json=CALL, headers={SESSION_HEADER: "0" * 32})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
