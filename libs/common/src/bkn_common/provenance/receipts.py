"""Signing and checking tool-executor's execution receipts.

What is signed: the receipt as published (``model_dump(mode="json", exclude_none=True)``)
without its ``signature``, ``key_id`` included, in canonical JSON
(:mod:`~bkn_common.provenance.canonical`). Its time is ``executed_at``: the key must have been
valid then.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.provenance.canonical import canonical_json
from bkn_common.provenance.keys import KeySet, SigningKey, signature_problem


def receipt_record(receipt: ev.ExecutionReceiptRecorded) -> dict[str, Any]:
    """The receipt's fields as they travel (and as a bundle carries them)."""
    return receipt.model_dump(mode="json", exclude_none=True)


def signed_payload(record: dict[str, Any]) -> bytes:
    return canonical_json({k: v for k, v in record.items() if k != "signature"})


def sign_receipt(receipt: ev.ExecutionReceiptRecorded, key: SigningKey) -> ev.ExecutionReceiptRecorded:
    """``receipt`` with ``key_id`` and ``signature`` set (any earlier signature replaced)."""
    unsigned = receipt.model_copy(update={"key_id": key.kid, "signature": None})
    return unsigned.model_copy(update={"signature": key.sign(signed_payload(receipt_record(unsigned)))})


def receipt_problem(record: dict[str, Any], keys: KeySet) -> str | None:
    """Why the receipt record does not verify (None: it does); ``unsigned`` when it carries no
    signature."""
    try:
        executed_at = datetime.fromisoformat(str(record["executed_at"]).replace("Z", "+00:00"))
    except (KeyError, ValueError):
        return "executed_at missing or not a time"
    return signature_problem(keys, record.get("key_id"), "receipt", signed_payload(record),
                             record.get("signature"), executed_at)
