"""Authentication: hashed bak_ AppKeys from the identity file, OAuth JWTs by key or JWKS."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bkn_common.contracts.errors import ApiError
from gateway.adapters.identity import Authenticator
from gateway.domain.identity import hash_app_key, new_app_key
from gateway.settings import GatewaySettings

ISSUER = "https://idp.test"


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _identity(tmp_path: Path, key: str) -> Path:
    path = tmp_path / "identity.yaml"
    path.write_text(
        "accounts:\n  - id: alice\n    kind: user\n    app_keys:\n"
        f"      - key_id: a1\n        sha256: {hash_app_key(key)}\n"
    )
    return path


def _token(key: rsa.RSAPrivateKey, **claims: object) -> str:
    body = {"sub": "bob", "iss": ISSUER, "exp": int(time.time()) + 60, **claims}
    return jwt.encode(body, key, algorithm="RS256", headers={"kid": "k1"})


def test_app_key_is_stored_hashed_and_authenticates(tmp_path: Path) -> None:
    key = new_app_key()
    identity = _identity(tmp_path, key)
    assert key not in identity.read_text()
    auth = Authenticator(GatewaySettings(identity_file=str(identity)))
    principal = auth.authenticate(f"Bearer {key}")
    assert (principal.account, principal.via) == ("alice", "app_key")


@pytest.mark.parametrize("header", [None, "", "Bearer", "Basic abc", "Bearer bak_wrong", "bearer  "])
def test_missing_or_bad_credentials_are_401(tmp_path: Path, header: str | None) -> None:
    auth = Authenticator(GatewaySettings(identity_file=str(_identity(tmp_path, new_app_key()))))
    with pytest.raises(ApiError) as refused:
        auth.authenticate(header)
    assert (refused.value.code, refused.value.status) == ("unauthenticated", 401)


def test_jwt_verified_against_configured_public_key(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    pem = tmp_path / "issuer.pem"
    pem.write_bytes(rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    auth = Authenticator(GatewaySettings(identity_file=str(tmp_path / "none.yaml"),
                                         jwt_public_key_file=str(pem), jwt_issuer=ISSUER))
    principal = auth.authenticate(f"Bearer {_token(rsa_key)}")
    assert (principal.account, principal.via) == ("bob", "oauth")
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for bad in (_token(other), _token(rsa_key, iss="https://evil"), _token(rsa_key, exp=int(time.time()) - 5)):
        with pytest.raises(ApiError):
            auth.authenticate(f"Bearer {bad}")


@pytest.fixture
def jwks_url(rsa_key: rsa.RSAPrivateKey) -> Iterator[str]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa_key.public_key()))
    body = json.dumps({"keys": [{**jwk, "kid": "k1", "alg": "RS256", "use": "sig"}]}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/jwks.json"
    server.shutdown()
    server.server_close()


def test_jwt_verified_against_jwks(tmp_path: Path, rsa_key: rsa.RSAPrivateKey, jwks_url: str) -> None:
    auth = Authenticator(GatewaySettings(identity_file=str(tmp_path / "none.yaml"),
                                         jwt_jwks_url=jwks_url, jwt_issuer=ISSUER))
    assert auth.authenticate(f"Bearer {_token(rsa_key)}").account == "bob"


def test_jwt_refused_when_no_issuer_key_is_configured(tmp_path: Path, rsa_key: rsa.RSAPrivateKey) -> None:
    auth = Authenticator(GatewaySettings(identity_file=str(tmp_path / "none.yaml")))
    with pytest.raises(ApiError) as refused:
        auth.authenticate(f"Bearer {_token(rsa_key)}")
    assert refused.value.status == 401
