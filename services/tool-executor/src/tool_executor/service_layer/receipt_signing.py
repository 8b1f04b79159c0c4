"""Every receipt tool-executor publishes is signed (bkn_common.provenance.receipts): the final
ones of executions and those recovered from the journal alike, since both leave through
:class:`SigningReceiptSink`. Without a receipt key (no ``PROVENANCE_KEYS_FILE``) receipts go
out unsigned, and verifiers report them ``unsigned``, never valid."""

from __future__ import annotations

import logging
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.provenance.canonical import canonical_json, sha256_of
from bkn_common.provenance.keys import Keyring
from bkn_common.provenance.receipts import sign_receipt
from tool_executor.service_layer.ports import ReceiptSink

log = logging.getLogger(__name__)


def response_hash(body: Any, raw: bytes | None) -> str:
    """sha256 of the exact bytes the tool answered (``raw``: an OpenAPI tool's HTTP body), or
    of the canonical JSON of its result (MCP and function tools, answered as values)."""
    if raw is not None:
        return sha256_of(raw)
    try:
        return sha256_of(canonical_json(body))
    except (TypeError, ValueError):  # a value JSON cannot carry: hash its text instead
        return sha256_of(repr(body).encode())


class SigningReceiptSink:
    """A :class:`ReceiptSink` that signs each receipt with the deployment's current receipt
    key before the inner sink (Kafka) publishes it."""

    def __init__(self, inner: ReceiptSink, keyring: Keyring | None) -> None:
        self._inner = inner
        self._keyring = keyring
        if keyring is None or keyring.signer("receipt") is None:
            log.warning("no receipt signing key (PROVENANCE_KEYS_FILE): receipts are published unsigned")

    async def publish(self, event: ev.Event) -> None:
        if isinstance(event, ev.ExecutionReceiptRecorded) and self._keyring is not None:
            key = self._keyring.signer("receipt")
            if key is not None:
                event = sign_receipt(event, key)
        await self._inner.publish(event)
