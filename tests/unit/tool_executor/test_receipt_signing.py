"""Every receipt tool-executor publishes is signed: final ones and those recovered from the
journal; the answer's hash is over the exact bytes the tool answered."""

from __future__ import annotations

import hashlib
import logging

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.provenance.keys import keyring_from_jwks, new_keyring
from bkn_common.provenance.receipts import receipt_problem, receipt_record
from tests.unit.tool_executor.test_receipt_recovery import Published, receipt
from tool_executor.adapters.memory_receipt_journal import MemoryReceiptJournal
from tool_executor.service_layer.receipt_recovery import ReceiptRecovery
from tool_executor.service_layer.receipt_signing import SigningReceiptSink, response_hash

RING = keyring_from_jwks(new_keyring())


def verified(event: ev.Event) -> str | None:
    decoded = decode_event(encode_event(event)).event
    assert isinstance(decoded, ev.ExecutionReceiptRecorded)
    return receipt_problem(receipt_record(decoded), RING.public)


async def test_a_published_receipt_is_signed_with_the_receipt_key() -> None:
    published = Published()
    await SigningReceiptSink(published, RING).publish(receipt("r1", known=True))
    (event,) = published.events
    assert isinstance(event, ev.ExecutionReceiptRecorded)
    assert event.key_id == RING.signer("receipt").kid  # type: ignore[union-attr]
    assert verified(event) is None


async def test_a_receipt_recovered_from_the_journal_is_signed_too() -> None:
    journal, published = MemoryReceiptJournal(), Published()
    await journal.open(receipt("crashed", known=False), deadline=1.0)  # journaled unsigned
    assert await ReceiptRecovery(journal, SigningReceiptSink(published, RING), clock=lambda: 2.0).sweep() == 1
    (event,) = published.events
    assert isinstance(event, ev.ExecutionReceiptRecorded) and not event.outcome_known
    assert verified(event) is None


async def test_without_a_key_receipts_go_out_unsigned_and_say_so(caplog: pytest.LogCaptureFixture) -> None:
    published = Published()
    with caplog.at_level(logging.WARNING):
        sink = SigningReceiptSink(published, None)
    assert "published unsigned" in caplog.text
    await sink.publish(receipt("r2", known=True))
    assert verified(published.events[0]) == "unsigned"


async def test_other_events_pass_through_untouched() -> None:
    published = Published()
    update = ev.ActionExecutionUpdated.model_validate({
        "execution_id": "x", "kn_id": "kn", "action_type_id": "a", "status": "running",
        "updated_at": "2026-01-01T00:00:00Z"})
    await SigningReceiptSink(published, RING).publish(update)
    assert published.events == [update]


def test_the_response_hash_is_over_the_exact_bytes_or_the_canonical_result() -> None:
    raw = b'{"b": 1, "a": 2}'
    assert response_hash({"a": 2, "b": 1}, raw) == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert response_hash({"b": 1, "a": 2}, None) == response_hash({"a": 2, "b": 1}, None)
    assert response_hash({"a": 2}, None) != response_hash({"a": 3}, None)
