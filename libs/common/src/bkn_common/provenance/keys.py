"""Ed25519 keys of a deployment: who signs (tool-executor receipts, trace-recorder seals), from
when until when each key is valid, and the file that holds them.

The keyring file (``PROVENANCE_KEYS_FILE``; ``.run/provenance_keys.json`` on the dev mesh, a
Secret on Kubernetes) is a JSON Web Key Set (RFC 7517) of OKP/Ed25519 keys. Besides the
standard members each key carries ``bkn_role`` (``receipt`` or ``seal``) and may carry
``bkn_valid_from`` / ``bkn_valid_until`` (RFC 3339 times): a signature made outside that
window does not verify with the key. A key with its private part ``d`` can sign. The key id
``kid`` is the key's RFC 7638 thumbprint. Rotation: add the new key (both are valid at once),
services sign with the newest key whose window has begun, then give the old key a
``bkn_valid_until`` and drop its ``d``: receipts it signed before stay verifiable.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from bkn_common.provenance.canonical import canonical_json, sha256_of

Role = Literal["receipt", "seal"]
ROLES: tuple[Role, ...] = ("receipt", "seal")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def thumbprint(x: str) -> str:
    """RFC 7638 thumbprint of an Ed25519 public key (``x``, base64url): the key's id."""
    members = {"crv": "Ed25519", "kty": "OKP", "x": x}
    return b64url(bytes.fromhex(sha256_of(canonical_json(members))[len("sha256:"):]))


def _time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True)
class PublicKey:
    kid: str
    role: Role
    x: str
    valid_from: datetime | None = None
    valid_until: datetime | None = None

    def valid_at(self, moment: datetime) -> bool:
        if self.valid_from is not None and moment < self.valid_from:
            return False
        return self.valid_until is None or moment < self.valid_until

    def verifies(self, payload: bytes, signature: str) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(unb64url(self.x)).verify(unb64url(signature), payload)
        except (InvalidSignature, ValueError):
            return False
        return True

    def jwk(self) -> dict[str, Any]:
        jwk: dict[str, Any] = {"kty": "OKP", "crv": "Ed25519", "x": self.x, "kid": self.kid,
                               "alg": "EdDSA", "use": "sig", "bkn_role": self.role}
        if self.valid_from is not None:
            jwk["bkn_valid_from"] = self.valid_from.isoformat()
        if self.valid_until is not None:
            jwk["bkn_valid_until"] = self.valid_until.isoformat()
        return jwk


@dataclass(frozen=True)
class SigningKey:
    public: PublicKey
    private: Ed25519PrivateKey

    @property
    def kid(self) -> str:
        return self.public.kid

    def sign(self, payload: bytes) -> str:
        return b64url(self.private.sign(payload))


class KeyringError(ValueError):
    """The keyring or key set is not a usable JWKS of Ed25519 keys."""


def _public_of(jwk: dict[str, Any]) -> PublicKey:
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519" or not isinstance(jwk.get("x"), str):
        raise KeyringError(f"key {jwk.get('kid')!r}: not an OKP Ed25519 key")
    role = jwk.get("bkn_role")
    if role not in ROLES:
        raise KeyringError(f"key {jwk.get('kid')!r}: bkn_role must be one of {', '.join(ROLES)}")
    kid = jwk.get("kid") or thumbprint(jwk["x"])
    return PublicKey(kid, role, jwk["x"], _time(jwk.get("bkn_valid_from")),
                     _time(jwk.get("bkn_valid_until")))


@dataclass(frozen=True)
class KeySet:
    """Public keys (what an auditor holds): find a key, check a signature at a time."""

    keys: tuple[PublicKey, ...]

    @classmethod
    def from_jwks(cls, jwks: dict[str, Any]) -> KeySet:
        entries = jwks.get("keys")
        if not isinstance(entries, list):
            raise KeyringError("a JWKS has a 'keys' list")
        return cls(tuple(_public_of(k) for k in entries if isinstance(k, dict)))

    def jwks(self) -> dict[str, Any]:
        return {"keys": [k.jwk() for k in self.keys]}

    def find(self, kid: str) -> PublicKey | None:
        return next((k for k in self.keys if k.kid == kid), None)

    def __add__(self, other: KeySet) -> KeySet:
        known = {k.kid for k in self.keys}
        return KeySet(self.keys + tuple(k for k in other.keys if k.kid not in known))


@dataclass(frozen=True)
class Keyring:
    """The deployment's keys with their private parts where this process has them."""

    public: KeySet
    signing: tuple[SigningKey, ...]

    def signer(self, role: Role, now: datetime | None = None) -> SigningKey | None:
        """The newest key of ``role`` that can sign and whose window holds ``now``."""
        moment = now or datetime.now(UTC)
        usable = [k for k in self.signing if k.public.role == role and k.public.valid_at(moment)]
        oldest = datetime.min.replace(tzinfo=UTC)
        return max(usable, key=lambda k: k.public.valid_from or oldest, default=None)


def keyring_from_jwks(jwks: dict[str, Any]) -> Keyring:
    public = KeySet.from_jwks(jwks)
    signing = []
    for jwk, key in zip((k for k in jwks["keys"] if isinstance(k, dict)), public.keys, strict=True):
        d = jwk.get("d")
        if isinstance(d, str) and d:
            private = Ed25519PrivateKey.from_private_bytes(unb64url(d))
            derived = b64url(private.public_key().public_bytes_raw())
            if derived != key.x:
                raise KeyringError(f"key {key.kid!r}: its d does not belong to its x")
            signing.append(SigningKey(key, private))
    return Keyring(public, tuple(signing))


def load_keyring(path: str | Path) -> Keyring:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise KeyringError(f"cannot read the keyring {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise KeyringError(f"{path}: not a JWKS object")
    return keyring_from_jwks(data)


def configured_keyring(path: str) -> Keyring | None:
    """The keyring ``PROVENANCE_KEYS_FILE`` names (None when it names none); a named file that
    cannot be read stops the service (:class:`KeyringError`) instead of signing nothing."""
    return load_keyring(path) if path else None


def new_key(role: Role, valid_from: datetime | None = None) -> dict[str, Any]:
    """A fresh private JWK of ``role`` (for a keyring file)."""
    private = Ed25519PrivateKey.generate()
    x = b64url(private.public_key().public_bytes_raw())
    jwk: dict[str, Any] = {"kty": "OKP", "crv": "Ed25519", "x": x, "d": b64url(private.private_bytes_raw()),
                           "kid": thumbprint(x), "alg": "EdDSA", "use": "sig", "bkn_role": role}
    if valid_from is not None:
        jwk["bkn_valid_from"] = valid_from.isoformat()
    return jwk


def new_keyring() -> dict[str, Any]:
    """A keyring with one receipt key and one seal key (what the dev mesh generates)."""
    return {"keys": [new_key(role) for role in ROLES]}


def signature_problem(keys: KeySet, kid: str | None, role: Role, payload: bytes,
                      signature: str | None, signed_at: datetime) -> str | None:
    """Why the signature does not hold (None: it does): no signature, an unknown key, a key of
    another role, a key used outside its window (retired, or not yet valid), a mismatch."""
    if not signature or not kid:
        return "unsigned"
    key = keys.find(kid)
    if key is None:
        return f"signed by an unknown key {kid}"
    if key.role != role:
        return f"key {kid} signs {key.role}s, not {role}s"
    if not key.valid_at(signed_at):
        window = f"{key.valid_from.isoformat() if key.valid_from else '-'} .. " \
                 f"{key.valid_until.isoformat() if key.valid_until else '-'}"
        return f"key {kid} was not valid at {signed_at.isoformat()} (valid {window}: retired or not yet valid)"
    if not key.verifies(payload, signature):
        return f"signature by {kid} does not match the signed fields"
    return None
