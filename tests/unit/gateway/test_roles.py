"""Roles: the identity file's ``roles`` and an OAuth claim mapped to ``operator``."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gateway.adapters.identity import Authenticator, claim_roles
from gateway.domain.identity import hash_app_key, new_app_key
from gateway.settings import GatewaySettings

ISSUER = "https://idp.test"


def test_identity_file_roles_reach_the_principal(tmp_path: Path) -> None:
    ops, plain = new_app_key(), new_app_key()
    identity = tmp_path / "identity.yaml"
    identity.write_text(
        "accounts:\n"
        f"  - id: sre\n    roles: [operator]\n    app_keys:\n      - {{key_id: s1, sha256: {hash_app_key(ops)}}}\n"
        f"  - id: alice\n    app_keys:\n      - {{key_id: a1, sha256: {hash_app_key(plain)}}}\n")
    auth = Authenticator(GatewaySettings(identity_file=str(identity)))
    assert auth.authenticate(f"Bearer {ops}").operator
    assert not auth.authenticate(f"Bearer {plain}").operator  # default: no role


@pytest.mark.parametrize(("claims", "operator"), [
    ({"roles": ["reader", "operator"]}, True),
    ({"roles": "operator other"}, True),
    ({"roles": ["reader"]}, False),
    ({}, False),
    ({"roles": {"operator": True}}, False),
])
def test_claim_roles(claims: dict[str, object], operator: bool) -> None:
    assert bool(claim_roles(claims, "roles", frozenset({"operator"}))) is operator


def test_nested_claim_and_configured_values(tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "issuer.pem"
    pem.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    settings = GatewaySettings(identity_file=str(tmp_path / "none.yaml"), jwt_public_key_file=str(pem),
                               jwt_issuer=ISSUER, jwt_role_claim="realm_access.roles",
                               jwt_operator_values=["sre"])
    auth = Authenticator(settings)

    def token(**claims: object) -> str:
        body = {"sub": "bob", "iss": ISSUER, "exp": int(time.time()) + 60, **claims}
        return "Bearer " + jwt.encode(body, key, algorithm="RS256")

    assert auth.authenticate(token(realm_access={"roles": ["sre"]})).operator
    assert not auth.authenticate(token(realm_access={"roles": ["operator"]})).operator
    assert not auth.authenticate(token(roles=["sre"])).operator
