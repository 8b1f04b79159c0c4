"""Decoding's one-pass path (a TypeAdapter over every current-version envelope) gives exactly
what the step-by-step path gives, and leaves every other record to it."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.event_types.base import _decode, _decode_current

AT = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)
SAMPLES: list[ev.Event] = [
    ev.BindingMounted(kn_id="k", capability=ev.CapabilityRef(capability_type="skill", capability_id="s")),
    ev.ProxySyncChanged(kn_id="k", proxy_id="p", synced=True),
    ev.InteractionStarted(conversation_id="c", interaction_id="i", new_conversation=True, account="a",
                          agent_name="n", question="q?", started_at=AT),
    ev.OperationRecorded(operation_id="o", operation_key="k", conversation_id="c", interaction_id="i",
                         tool_name="t", input_hash="h", receipt_id="r", recorded_at=AT,
                         receipt_status="completed", evidence_durability="durable",
                         result={"rows": [1, 2.5, None, "é", {"deep": True}], "big": 10**30}),
    ev.EvidenceRecorded(evidence_id="e", operation_id="o", interaction_id="i", evidence_type="retrieval",
                        attempt=1, attributes={"n": 5}, source_refs=("a:b",), recorded_at=AT),
    ev.ExecutionReceiptRecorded(receipt_id="x", operation_id="o", conversation_id="c", interaction_id="i",
                                kn_id="kn", owner_id="b", tool_id="t", capability_type="function",
                                caller="c", proxy_id="p", arguments_hash="ah", outcome="succeeded",
                                status_code=200, latency_ms=12.5, executed_at=AT, trace_id="tr"),
    ev.SpansExported(spans=tuple(
        ev.SpanExported(trace_id="tr", span_id=f"s{k}", name="step", service_name="gateway", kind="internal",
                        start_time_unix_nano=1_764_658_800_000_000_000 + k,
                        end_time_unix_nano=1_764_658_800_000_001_000 + k, status="ok",
                        attributes={"bkn.operation_id": "o"})
        for k in range(3))),
]


def _envelope(data: dict[str, Any], **fields: Any) -> bytes:
    envelope = {"type": "trace.span.exported", "schema_version": 1, "event_id": "e1",
                "occurred_at": "2026-12-02T07:00:00+00:00", "data": data, **fields}
    return json.dumps(envelope).encode()


SPAN = {"trace_id": "t", "span_id": "s", "name": "n", "service_name": "x", "kind": "k",
        "start_time_unix_nano": 1, "end_time_unix_nano": 2, "status": "ok"}


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.type)
def test_a_current_record_takes_the_one_pass_path_and_decodes_the_same(event: ev.Event) -> None:
    raw = ev.encode_event(event, event_id="e1")
    fast = _decode_current(raw)
    assert fast is not None
    slow_event, envelope, occurred_at = _decode(raw)
    assert fast == (slow_event, envelope["event_id"], occurred_at)
    assert fast[0] == event
    record = ev.decode_event(raw)
    assert (record.event, record.event_id, record.occurred_at) == fast
    assert ev.decode_payload(raw) == event


@pytest.mark.parametrize("value", [
    '"\\ud800"', "123456789012345678901234567890", "-9999999999999999999", "1e400", "NaN", "-0.0",
    "1.5e-320", '"\u00e9"', '{"k": 1, "k": 2}', "0.1", "[]", "null",
])
def test_free_form_values_decode_as_the_step_by_step_path_decodes_them(value: str) -> None:
    raw = _envelope(SPAN).replace(b'"status": "ok"', b'"status": "ok", "attributes": {"a": ' + value.encode() + b"}")
    slow = _decode(raw)[0]
    fast = _decode_current(raw)
    if fast is None:  # declined: the step-by-step path decides, as before
        return
    got, want = fast[0].attributes["a"], slow.attributes["a"]  # type: ignore[attr-defined]
    if isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got)
    else:
        assert got == want and type(got) is type(want)


@pytest.mark.parametrize("raw", [
    None,
    b"{nope",
    b"[1]",
    _envelope(SPAN, type="nope"),
    _envelope(SPAN, schema_version=True),  # an int to the step-by-step path (it accepts it)
    _envelope(SPAN, schema_version=1.0),
    _envelope(SPAN, schema_version=9),
    _envelope({**SPAN, "extra": 1}),
    _envelope({**SPAN, "start_time_unix_nano": "soon"}),
    _envelope(SPAN, occurred_at="yesterday"),
    _envelope(SPAN, occurred_at=None),
    json.dumps({"type": "trace.span.exported", "data": SPAN}).encode(),  # no version: v1 by default
])
def test_other_records_are_left_to_the_step_by_step_path(raw: bytes | None) -> None:
    assert _decode_current(raw) is None
    try:
        want: Any = _decode(raw)[0]
    except ev.PoisonMessage as exc:
        with pytest.raises(ev.PoisonMessage) as poison:
            ev.decode_payload(raw)
        assert poison.value.reason == exc.reason
    else:
        assert ev.decode_payload(raw) == want
