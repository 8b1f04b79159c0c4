"""Authentication adapters: the identity file and OAuth JWT verification (the
``service_layer.ports.Authentication`` port)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jwt
import yaml

from bkn_common.contracts.errors import ApiError, ErrorCode
from gateway.domain.identity import (
    APP_KEY_PREFIX,
    OPERATOR,
    AppKeyDirectory,
    IdentityFile,
    Principal,
    Role,
)
from gateway.settings import GatewaySettings


def load_identity_file(path: str) -> IdentityFile:
    file = Path(path)
    if not file.exists():
        return IdentityFile()
    return IdentityFile.model_validate(yaml.safe_load(file.read_text(encoding="utf-8")) or {})


class Authenticator:
    """Bearer tokens: ``bak_`` AppKeys from the identity file, else OAuth access tokens (JWT)."""

    def __init__(self, settings: GatewaySettings) -> None:
        self._keys = AppKeyDirectory(load_identity_file(settings.identity_file))
        self._issuer = settings.jwt_issuer
        self._audience = settings.jwt_audience
        self._public_key = (
            Path(settings.jwt_public_key_file).read_text() if settings.jwt_public_key_file else None
        )
        self._jwks = jwt.PyJWKClient(settings.jwt_jwks_url) if settings.jwt_jwks_url else None
        self._role_claim = settings.jwt_role_claim
        self._operator_values = frozenset(settings.jwt_operator_values)

    def authenticate(self, authorization: str | None) -> Principal:
        if not authorization:
            raise _unauthenticated("missing Authorization header")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _unauthenticated("expected 'Bearer <token>'")
        if token.startswith(APP_KEY_PREFIX):
            principal = self._keys.authenticate(token)
            if principal is None:
                raise _unauthenticated("unknown AppKey")
            return principal
        return self._verify_jwt(token)

    def _verify_jwt(self, token: str) -> Principal:
        if self._public_key is None and self._jwks is None:
            raise _unauthenticated("OAuth tokens are not configured on this deployment")
        try:
            key = self._jwks.get_signing_key_from_jwt(token).key if self._jwks else self._public_key
            claims = jwt.decode(
                token,
                key=key,  # type: ignore[arg-type]
                algorithms=["RS256", "ES256", "EdDSA"],
                issuer=self._issuer,
                audience=self._audience,
                options={"require": ["exp", "sub"], "verify_aud": self._audience is not None},
            )
        except jwt.PyJWTError as exc:
            raise _unauthenticated(f"invalid access token ({type(exc).__name__})") from exc
        kind = "service" if claims.get("client_only") or claims.get("azp") == claims["sub"] else "user"
        roles = claim_roles(claims, self._role_claim, self._operator_values)
        return Principal(str(claims["sub"]), kind, "oauth", roles)  # type: ignore[arg-type]


def claim_roles(claims: dict[str, Any], claim: str, operator_values: frozenset[str]) -> frozenset[Role]:
    """The roles an access token's ``claim`` grants: ``operator`` when it holds (a string, a
    space-separated scope string or a list) one of ``operator_values``. A dotted ``claim``
    names a nested one (``realm_access.roles``)."""
    value: Any = claims
    for part in claim.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if isinstance(value, str):
        held = set(value.split())
    elif isinstance(value, list):
        held = {str(v) for v in value}
    else:
        held = set()
    return frozenset({OPERATOR}) if held & operator_values else frozenset()


def _unauthenticated(reason: str) -> ApiError:
    return ApiError(ErrorCode.UNAUTHENTICATED, 401, params={"reason": reason})
