"""Every tamper kind of an exported bundle is caught, with its precise reason: a changed field
(which record, which field), a missing record, reordered records, an edited chain, a head
re-signed with a foreign key or by a retired key, an unsigned receipt."""

from __future__ import annotations

import asyncio
import copy
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bkn_common.contracts import events as ev
from bkn_common.provenance.bundle import verify_bundle
from bkn_common.provenance.chain import seal_payload
from bkn_common.provenance.keys import KeySet, keyring_from_jwks, new_keyring
from tests.support.trace_view_contract import KEYRING, Turns, at, batch, sealer_of, signed, wire_json
from trace_recorder.service_layer.bundle import interaction_bundle
from trace_recorder.service_layer.store import TraceStore


def sealed_bundle(events: list[ev.Event], interaction_id: str = "int_1") -> dict[str, Any]:
    store = TraceStore()
    batch(store, events)
    sealer, _ = sealer_of(store)
    assert asyncio.run(sealer.seal(interaction_id)) is not None
    return wire_json(interaction_bundle(store, interaction_id, at(200)) or {})


BUNDLE = sealed_bundle(signed(Turns.turn(1, ops=3)))


def reason(bundle: dict[str, Any], keys: KeySet = KEYRING.public) -> str:
    report = verify_bundle(bundle, keys)
    assert not report.ok
    broken = report.first_broken
    assert broken is not None
    return broken.detail


def test_the_untouched_bundle_verifies() -> None:
    report = verify_bundle(copy.deepcopy(BUNDLE), KEYRING.public)
    assert report.ok, report.first_broken
    kinds = {r["kind"] for r in BUNDLE["records"]}
    assert kinds == {"interaction.started", "operation.begun", "operation.completed", "execution.receipt",
                     "evidence", "interaction.finished"}


def _new_value(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x" if value else "x"
    if value is None:
        return "x"
    return [value]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_changed_field_is_named(data: st.DataObject) -> None:
    bundle = copy.deepcopy(BUNDLE)
    record = data.draw(st.sampled_from(bundle["records"]))
    name = data.draw(st.sampled_from(sorted(record["data"])))
    record["data"][name] = _new_value(record["data"][name])
    assert reason(bundle) == (f"changed field: {record['kind']} {record['ref']} field {name} "
                              "differs from what was sealed")


def test_one_byte_of_a_result_changed() -> None:
    bundle = copy.deepcopy(BUNDLE)
    completed = next(r for r in bundle["records"] if r["kind"] == "operation.completed")
    completed["data"]["result"] = {"rows": completed["data"]["result"]["rows"] + 1}
    assert reason(bundle).startswith(f"changed field: operation.completed {completed['ref']} field result")


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_removed_record_is_named_missing(data: st.DataObject) -> None:
    bundle = copy.deepcopy(BUNDLE)
    index = data.draw(st.integers(0, len(bundle["records"]) - 1))
    gone = bundle["records"].pop(index)
    assert reason(bundle) == (f"missing record: chain entry {gone['index']} ({gone['kind']} {gone['ref']}) "
                              "has no record in the bundle")


def test_a_removed_operation_is_missing() -> None:
    bundle = copy.deepcopy(BUNDLE)
    bundle["records"] = [r for r in bundle["records"]
                         if r["data"].get("operation_id") != "op_1_1" or r["kind"] == "interaction.finished"]
    assert reason(bundle).startswith("missing record: chain entry ")
    assert "op_1_1" in reason(bundle)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_swapped_records_are_reordered(data: st.DataObject) -> None:
    bundle = copy.deepcopy(BUNDLE)
    count = len(bundle["records"])
    i = data.draw(st.integers(0, count - 2))
    j = data.draw(st.integers(i + 1, count - 1))
    records = bundle["records"]
    records[i], records[j] = records[j], records[i]
    assert reason(bundle).startswith("reordered: ")


def test_two_swapped_receipts_are_reordered() -> None:
    bundle = copy.deepcopy(BUNDLE)
    records = bundle["records"]
    i, j = [n for n, r in enumerate(records) if r["kind"] == "execution.receipt"][:2]
    records[i], records[j] = records[j], records[i]
    assert reason(bundle) == (f"reordered: {records[j]['kind']} {records[j]['ref']} (chain entry "
                              f"{records[j]['index']}) comes after {records[i]['kind']} {records[i]['ref']} "
                              f"(chain entry {records[i]['index']}) in the bundle")


def test_a_removed_chain_entry_is_a_gap() -> None:
    bundle = copy.deepcopy(BUNDLE)
    del bundle["chain"]["entries"][4]
    bundle["records"] = [r for r in bundle["records"] if r["index"] != 4]
    assert reason(bundle).startswith("gap in the chain: entry 4 is ")


def test_an_edited_chain_entry_is_named() -> None:
    bundle = copy.deepcopy(BUNDLE)
    entry = bundle["chain"]["entries"][2]
    record = next(r for r in bundle["records"] if r["index"] == 2)
    name = sorted(record["data"])[0]
    record["data"][name] = _new_value(record["data"][name])
    entry["fields"][name] = "sha256:" + "0" * 64  # the attacker rewrites the field's hash too
    assert reason(bundle).startswith(f"changed field: {entry['kind']} {entry['ref']} field {name}")
    # with the field hash made to match, the entry no longer leads to its record hash
    from bkn_common.provenance.chain import field_hashes

    entry["fields"] = field_hashes(record["data"])
    assert reason(bundle) == (f"chain entry 2 ({entry['kind']} {entry['ref']}) was edited: its hash does "
                              "not follow from its fields")


def _resign(bundle: dict[str, Any], signer_ring: Any, kid: str | None = None) -> None:
    key = signer_ring.signer("seal")
    for head in bundle["chain"]["heads"]:
        head["key_id"] = kid or key.kid
        head["signature"] = key.sign(seal_payload(bundle["interaction_id"], head["seq"], head["length"],
                                                  head["head"], head["sealed_at"], head["key_id"]))


def test_a_head_re_signed_with_a_foreign_key_fails() -> None:
    foreign = keyring_from_jwks(new_keyring())
    bundle = copy.deepcopy(BUNDLE)
    _resign(bundle, foreign)
    assert reason(bundle) == f"seal #1: signed by an unknown key {foreign.signer('seal').kid}"  # type: ignore[union-attr]
    bundle = copy.deepcopy(BUNDLE)
    _resign(bundle, foreign, kid=KEYRING.signer("seal").kid)  # type: ignore[union-attr]
    assert reason(bundle) == f"seal #1: signature by {KEYRING.signer('seal').kid} does not match the signed fields"  # type: ignore[union-attr]


def test_a_seal_by_a_key_retired_before_it_fails() -> None:
    jwks = KEYRING.public.jwks()
    for key in jwks["keys"]:
        if key["bkn_role"] == "seal":
            key["bkn_valid_until"] = (at(100) - timedelta(seconds=1)).isoformat()
    problem = reason(copy.deepcopy(BUNDLE), KeySet.from_jwks(jwks))
    assert problem.startswith(f"seal #1: key {KEYRING.signer('seal').kid} was not valid at")  # type: ignore[union-attr]


def test_a_receipt_published_unsigned_is_reported_unsigned() -> None:
    bundle = sealed_bundle(Turns.turn(1))  # receipts of before: no signature
    problem = reason(bundle)
    assert problem == "unsigned receipt exec_1_0: it carries no signature, so nothing shows who recorded it"


def test_a_record_that_arrived_after_the_seal_is_not_sealed_until_the_next_one() -> None:
    store = TraceStore()
    batch(store, signed(Turns.turn(1)))
    sealer, _ = sealer_of(store)
    asyncio.run(sealer.seal("int_1"))
    batch(store, signed([Turns.receipt(1, 1, rid="exec_late")]))
    bundle = wire_json(interaction_bundle(store, "int_1", at(200)) or {})
    assert reason(bundle) == ("record not sealed: execution.receipt exec_late is not in the chain (it arrived "
                              "after the last seal, or was added)")
    asyncio.run(sealer.seal("int_1"))
    assert verify_bundle(wire_json(interaction_bundle(store, "int_1", at(200)) or {}), KEYRING.public).ok


def test_a_removed_head_is_missing_from_the_history() -> None:
    store = TraceStore()
    batch(store, signed(Turns.turn(1)))
    sealer, _ = sealer_of(store)
    asyncio.run(sealer.seal("int_1"))
    batch(store, signed([Turns.receipt(1, 1, rid="exec_late")]))
    asyncio.run(sealer.seal("int_1"))
    bundle = wire_json(interaction_bundle(store, "int_1", at(200)) or {})
    del bundle["chain"]["heads"][0]
    assert reason(bundle) == "seal #1 is missing from the history of heads"


@pytest.mark.parametrize("broken", [{"format": "other"}, {}])
def test_not_a_bundle(broken: dict[str, Any]) -> None:
    assert reason(broken).startswith("not a bkn.provenance.bundle/1 bundle")
