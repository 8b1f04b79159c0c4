"""Receipt signatures and key rotation: two keys valid at once, retired keys still verify what
they signed while valid, and nothing else."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.provenance.keys import (
    KeyringError,
    KeySet,
    keyring_from_jwks,
    load_keyring,
    new_key,
    new_keyring,
    thumbprint,
)
from bkn_common.provenance.receipts import receipt_problem, receipt_record, sign_receipt

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def receipt(at: datetime = T0, **kw: object) -> ev.ExecutionReceiptRecorded:
    fields: dict[str, object] = dict(
        receipt_id="rcpt_1", operation_id="op_1", conversation_id="conv_1", interaction_id="int_1",
        kn_id="kn", owner_id="box", tool_id="tool", capability_type="openapi_tool", caller="alice",
        proxy_id="px", arguments_hash="sha256:aa", outcome="succeeded", status_code=200,
        latency_ms=12.25, executed_at=at, response_hash="sha256:bb")
    fields.update(kw)
    return ev.ExecutionReceiptRecorded.model_validate(fields)


def travelled(event: ev.ExecutionReceiptRecorded) -> dict[str, object]:
    """The receipt as a consumer of the topic sees it."""
    decoded = decode_event(encode_event(event)).event
    assert isinstance(decoded, ev.ExecutionReceiptRecorded)
    return receipt_record(decoded)


def test_a_signed_receipt_verifies_after_the_trip_through_kafka() -> None:
    ring = keyring_from_jwks(new_keyring())
    key = ring.signer("receipt", T0)
    assert key is not None
    record = travelled(sign_receipt(receipt(), key))
    assert record["key_id"] == key.kid == thumbprint(key.public.x)
    assert receipt_problem(record, ring.public) is None


@pytest.mark.parametrize(("field", "value"), [
    ("outcome", "tool_error"), ("status_code", 500), ("response_hash", "sha256:cc"),
    ("arguments_hash", "sha256:ab"), ("latency_ms", 12.5), ("caller", "mallory"),
    ("interaction_id", "int_2"), ("executed_at", "2026-06-01T00:00:01Z"),
])
def test_any_changed_field_breaks_the_signature(field: str, value: object) -> None:
    ring = keyring_from_jwks(new_keyring())
    key = ring.signer("receipt", T0)
    assert key is not None
    record = travelled(sign_receipt(receipt(), key)) | {field: value}
    assert receipt_problem(record, ring.public) == f"signature by {key.kid} does not match the signed fields"


def test_a_receipt_of_before_is_unsigned_never_valid() -> None:
    ring = keyring_from_jwks(new_keyring())
    assert receipt_problem(travelled(receipt()), ring.public) == "unsigned"


def test_unknown_keys_and_keys_of_the_other_role_do_not_verify() -> None:
    ring, foreign = keyring_from_jwks(new_keyring()), keyring_from_jwks(new_keyring())
    foreign_key = foreign.signer("receipt", T0)
    seal_key = ring.signer("seal", T0)
    assert foreign_key is not None and seal_key is not None
    problem = receipt_problem(travelled(sign_receipt(receipt(), foreign_key)), ring.public)
    assert problem == f"signed by an unknown key {foreign_key.kid}"
    problem = receipt_problem(travelled(sign_receipt(receipt(), seal_key)), ring.public)
    assert problem == f"key {seal_key.kid} signs seals, not receipts"


def test_rotation_two_keys_at_once_then_the_old_one_retired() -> None:
    old = new_key("receipt", valid_from=T0)
    new = new_key("receipt", valid_from=T0 + timedelta(days=30))
    ring = keyring_from_jwks({"keys": [old, new]})
    # before the new key's window both are published but the old one signs
    assert ring.signer("receipt", T0 + timedelta(days=29)).kid == old["kid"]  # type: ignore[union-attr]
    # once it has begun the newer one signs; the old one still verifies
    assert ring.signer("receipt", T0 + timedelta(days=31)).kid == new["kid"]  # type: ignore[union-attr]
    signer = ring.signer("receipt", T0 + timedelta(days=1))
    assert signer is not None
    old_signed = travelled(sign_receipt(receipt(T0 + timedelta(days=1)), signer))
    # retire the old key: its private part goes, its window closes
    retired = {k: v for k, v in old.items() if k != "d"} | {"bkn_valid_until": (T0 + timedelta(days=40)).isoformat()}
    after = keyring_from_jwks({"keys": [retired, new]})
    assert after.signer("receipt", T0 + timedelta(days=41)).kid == new["kid"]  # type: ignore[union-attr]
    assert receipt_problem(old_signed, after.public) is None  # signed while it was valid
    # a receipt claiming a time after the retirement, signed with the old key, does not verify
    stolen = travelled(sign_receipt(receipt(T0 + timedelta(days=45)), ring.signing[0]))
    problem = receipt_problem(stolen, after.public)
    assert problem is not None and problem.startswith(f"key {old['kid']} was not valid at")


def test_keyring_files_and_the_public_jwks(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text(json.dumps(new_keyring()))
    ring = load_keyring(path)
    jwks = ring.public.jwks()
    assert all("d" not in k for k in jwks["keys"])
    assert {k["bkn_role"] for k in jwks["keys"]} == {"receipt", "seal"}
    assert KeySet.from_jwks(jwks).jwks() == jwks
    bad = new_key("seal") | {"d": new_key("seal")["d"]}
    with pytest.raises(KeyringError):
        keyring_from_jwks({"keys": [bad]})
    with pytest.raises(KeyringError):
        load_keyring(tmp_path / "missing.json")
