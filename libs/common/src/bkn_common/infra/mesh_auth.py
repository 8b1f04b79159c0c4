"""Service identity on internal hops: every ``/internal/`` request is signed by the calling
mesh service and checked by the called one.

A request carries four headers: ``X-BKN-Caller`` (the calling service), ``X-BKN-Mesh-Timestamp``
(unix seconds), ``X-BKN-Mesh-Nonce`` (random, once per request) and ``X-BKN-Mesh-Signature``
(``v1=<hex>``), the HMAC-SHA256 under ``MESH_INTERNAL_SECRET`` of::

    v1 \\n METHOD \\n /path \\n canonical query \\n sha256(body) \\n timestamp \\n nonce \\n account \\n caller

where ``account`` is the ``X-BKN-Account`` the call runs for (empty when none), so the account
cannot be changed without the secret. A verifier accepts the current secret and, during a
rotation, ``MESH_INTERNAL_SECRET_PREVIOUS``; a timestamp further than the skew window from its
clock, or a nonce it has already seen inside the window, is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Literal
from urllib.parse import parse_qsl, quote, urlencode

from pydantic import SecretStr

from bkn_common.infra.settings import ServiceSettings

ACCOUNT_HEADER = "x-bkn-account"
CALLER_HEADER = "x-bkn-caller"
TIMESTAMP_HEADER = "x-bkn-mesh-timestamp"
NONCE_HEADER = "x-bkn-mesh-nonce"
SIGNATURE_HEADER = "x-bkn-mesh-signature"
#: headers only mesh services may set; the public edge drops them from every inbound request
INTERNAL_HEADERS = frozenset({ACCOUNT_HEADER, CALLER_HEADER, TIMESTAMP_HEADER, NONCE_HEADER,
                              SIGNATURE_HEADER})
INTERNAL_PATH_PREFIX = "/internal/"
MIN_SECRET_LENGTH = 16
_SCHEME = "v1"
_EMPTY_BODY_SHA256 = hashlib.sha256(b"").hexdigest()

Refusal = Literal["missing", "malformed", "expired", "bad_signature", "replayed"]


class MeshSecretMissing(RuntimeError):
    """The service cannot start: internal calls could not be signed or checked."""


def canonical_query(raw: str) -> str:
    """The query as signed: decoded pairs, sorted, re-encoded (so client encodings agree)."""
    if not raw:
        return ""
    return urlencode(sorted(parse_qsl(raw, keep_blank_values=True)), quote_via=quote)


def encode_query(params: Mapping[str, object]) -> str:
    """A query string for ``params`` (the form signers send and sign)."""
    return urlencode(sorted((k, str(v)) for k, v in params.items()), quote_via=quote)


def _message(method: str, path: str, query: str, body_sha256: str, timestamp: str, nonce: str,
             account: str, caller: str) -> bytes:
    return "\n".join((_SCHEME, method.upper(), path, query, body_sha256, timestamp, nonce,
                      account, caller)).encode("utf-8")


def _mac(key: bytes, message: bytes) -> str:
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest() if body else _EMPTY_BODY_SHA256


class MeshSigner:
    """Signs a service's outgoing internal requests."""

    def __init__(self, secret: str, caller: str, clock: Callable[[], float] = time.time) -> None:
        self._key = secret.encode("utf-8")
        self.caller = caller
        self._clock = clock

    def headers(self, method: str, path: str, *, query: str = "", body: bytes = b"",
                account: str | None = None) -> dict[str, str]:
        """The identity headers for one request (``query`` as sent, without ``?``)."""
        timestamp = str(int(self._clock()))
        nonce = secrets.token_hex(12)
        message = _message(method, path, canonical_query(query), body_digest(body), timestamp,
                           nonce, account or "", self.caller)
        headers = {
            CALLER_HEADER: self.caller,
            TIMESTAMP_HEADER: timestamp,
            NONCE_HEADER: nonce,
            SIGNATURE_HEADER: f"{_SCHEME}={_mac(self._key, message)}",
        }
        if account is not None:
            headers[ACCOUNT_HEADER] = account
        return headers


class _SeenNonces:
    """Nonces accepted inside the skew window (per process), oldest first."""

    def __init__(self, limit: int = 200_000) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._limit = limit

    def first_use(self, nonce: str, now: float, window: float) -> bool:
        while self._seen:
            oldest, seen_at = next(iter(self._seen.items()))
            if seen_at >= now - 2 * window and len(self._seen) < self._limit:
                break
            del self._seen[oldest]
        if nonce in self._seen:
            return False
        self._seen[nonce] = now
        return True


class MeshVerifier:
    """Checks incoming internal requests against the current (and the previous) secret."""

    def __init__(self, secrets_: Sequence[str], max_skew_seconds: float,
                 clock: Callable[[], float] = time.time) -> None:
        self._keys = [s.encode("utf-8") for s in secrets_]
        self._skew = max_skew_seconds
        self._clock = clock
        self._nonces = _SeenNonces()

    def refusal(self, method: str, path: str, raw_query: str, body: bytes,
                headers: Mapping[str, str]) -> Refusal | None:
        """Why this request is refused, or None when it is signed by a mesh service."""
        signature, timestamp = headers.get(SIGNATURE_HEADER), headers.get(TIMESTAMP_HEADER)
        nonce, caller = headers.get(NONCE_HEADER), headers.get(CALLER_HEADER)
        if not signature or not timestamp or not nonce or not caller:
            return "missing"
        scheme, _, given = signature.partition("=")
        if scheme != _SCHEME or not given or not timestamp.isdigit():
            return "malformed"
        now = self._clock()
        if abs(now - int(timestamp)) > self._skew:
            return "expired"
        message = _message(method, path, canonical_query(raw_query), body_digest(body), timestamp,
                           nonce, headers.get(ACCOUNT_HEADER, ""), caller)
        if not any(hmac.compare_digest(_mac(key, message), given) for key in self._keys):
            return "bad_signature"
        if not self._nonces.first_use(nonce, now, self._skew):
            return "replayed"
        return None


def _secret_values(settings: ServiceSettings) -> list[str]:
    values = []
    for name in ("mesh_internal_secret", "mesh_internal_secret_previous"):
        secret: SecretStr | None = getattr(settings, name)
        value = secret.get_secret_value() if secret is not None else ""
        if value and len(value) < MIN_SECRET_LENGTH:
            raise MeshSecretMissing(
                f"{name.upper()} is shorter than {MIN_SECRET_LENGTH} characters; generate one with "
                "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
        values.append(value)
    if not values[0]:
        raise MeshSecretMissing(
            "MESH_INTERNAL_SECRET is not set: every mesh service needs the deployment's internal "
            "secret to sign and check /internal/ calls (make run / devmesh generate one per run "
            "folder; on Kubernetes it comes from a Secret). See docs/operations.md#security.")
    return [v for v in values if v]


def signer_from(settings: ServiceSettings) -> MeshSigner:
    """The signer for this service's outgoing internal calls (refuses an unset secret)."""
    return MeshSigner(_secret_values(settings)[0], settings.service_name)


def verifier_from(settings: ServiceSettings) -> MeshVerifier:
    """The verifier for this service's ``/internal/`` routes (refuses an unset secret)."""
    return MeshVerifier(_secret_values(settings), settings.mesh_internal_max_skew_seconds)
