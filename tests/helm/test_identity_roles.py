"""The chart's identity Secret carries each account's roles (the operator role reads every
account's traces) in the shape the gateway's identity file parses."""

from __future__ import annotations

import base64
import hashlib

import yaml

from gateway.domain.identity import IdentityFile
from tests.helm.chart import REQUIRED, documents, render


def test_roles_reach_the_identity_file() -> None:
    digest = hashlib.sha256(b"bak_sre").hexdigest()
    manifest = render(REQUIRED, sets={
        "identity.accounts[0].id": "sre", "identity.accounts[0].roles[0]": "operator",
        "identity.accounts[0].appKeys[0].keyId": "sre-1", "identity.accounts[0].appKeys[0].sha256": digest,
        "identity.accounts[1].id": "alice", "identity.accounts[1].appKeys[0].keyId": "a-1",
        "identity.accounts[1].appKeys[0].sha256": digest.replace(digest[0], "0", 1),
    })
    secret = next(d for d in documents(manifest) if d["kind"] == "Secret" and "identity.yaml" in d.get("data", {}))
    identity = IdentityFile.model_validate(yaml.safe_load(base64.b64decode(secret["data"]["identity.yaml"])))
    roles = {a.id: a.roles for a in identity.accounts}
    assert roles["sre"] == ["operator"] and roles["alice"] == []
