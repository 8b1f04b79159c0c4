"""Principals and the local identity file (accounts with hashed ``bak_`` AppKeys)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

APP_KEY_PREFIX = "bak_"

Role = Literal["operator"]
OPERATOR: Role = "operator"
"""Reads every account's traces through the operator API and the console."""


@dataclass(frozen=True)
class Principal:
    account: str
    kind: Literal["user", "service"]
    via: Literal["app_key", "oauth"]
    roles: frozenset[Role] = frozenset()

    @property
    def operator(self) -> bool:
        return OPERATOR in self.roles


class AppKeyRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key_id: str
    sha256: str


class AccountRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str = ""
    kind: Literal["user", "service"] = "user"
    roles: list[Role] = []
    app_keys: list[AppKeyRecord] = []


class IdentityFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    accounts: list[AccountRecord] = []


def hash_app_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_app_key() -> str:
    return APP_KEY_PREFIX + secrets.token_urlsafe(32)


class AppKeyDirectory:
    """Looks up an AppKey by its hash; the plain key is never stored."""

    def __init__(self, identity: IdentityFile) -> None:
        self._by_hash = {
            key.sha256: account for account in identity.accounts for key in account.app_keys
        }

    def authenticate(self, key: str) -> Principal | None:
        digest = hash_app_key(key)
        for known, account in self._by_hash.items():
            if hmac.compare_digest(known, digest):
                return Principal(account.id, account.kind, "app_key", frozenset(account.roles))
        return None
