"""Event contracts: round trip, poison reasons, upcasters, keys and topics."""

from __future__ import annotations

import json
from typing import ClassVar

import pytest
from pydantic import ValidationError

from bkn_common.contracts import events as ev
from bkn_common.contracts.event_types.base import Event, _decode_current, register_event, register_upcaster
from bkn_common.contracts.keys import event_key
from bkn_common.contracts.topics import ALL_TOPICS, BINDINGS, topic_for_event


def test_round_trip_keeps_type_version_and_data() -> None:
    event = ev.BindingMounted(kn_id="k", capability=ev.CapabilityRef(capability_type="skill", capability_id="s"))
    record = ev.decode_event(ev.encode_event(event, event_id="e1"))
    assert record.event == event and record.event_id == "e1"
    assert topic_for_event(event) is BINDINGS and event_key(event) == b"k"


def test_events_are_frozen() -> None:
    event = ev.ProxySyncChanged(kn_id="k", proxy_id="p", synced=True)
    with pytest.raises(ValidationError):
        event.synced = False  # type: ignore[misc]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"{nope", "invalid JSON"),
        (None, "empty record"),
        (b"[1]", "not a JSON object"),
        (json.dumps({"type": "nope", "data": {}}).encode(), "unknown event type"),
        (
            json.dumps({"type": "binding.mounted", "schema_version": 1, "data": {"kn_id": 1}}).encode(),
            "failed validation",
        ),
        (json.dumps({"type": "binding.mounted", "schema_version": 9, "data": {}}).encode(), "newer than this reader"),
    ],
)
def test_poison_records_say_why(raw: bytes | None, reason: str) -> None:
    with pytest.raises(ev.PoisonMessage) as poison:
        ev.decode_event(raw)
    assert reason in poison.value.reason


def test_upcaster_turns_an_old_version_into_the_current_one() -> None:
    @register_event
    class Renamed(Event):
        type: ClassVar[str] = "test.renamed"
        schema_version: ClassVar[int] = 2
        new_name: str

    register_upcaster("test.renamed", 1, lambda data: {"new_name": data["old_name"]})
    raw = json.dumps({"type": "test.renamed", "schema_version": 1, "event_id": "x",
                      "occurred_at": "2026-01-01T00:00:00+00:00", "data": {"old_name": "v"}}).encode()
    assert ev.decode_event(raw).event == Renamed(new_name="v")
    # a type registered after the first decode is decoded in one pass at its current version;
    # the old version is left to the step-by-step path, which upcasts it to the same event
    current = json.dumps({"type": "test.renamed", "schema_version": 2, "event_id": "x",
                          "occurred_at": "2026-01-01T00:00:00+00:00", "data": {"new_name": "v"}}).encode()
    assert _decode_current(current) is not None
    assert _decode_current(raw) is None
    assert ev.decode_payload(current) == ev.decode_payload(raw) == Renamed(new_name="v")


def test_every_registered_domain_event_has_one_topic_and_a_key() -> None:
    carried = [e for spec in ALL_TOPICS for e in spec.events]
    assert len(carried) == len(set(carried))
    assert {e.type for e in carried} <= set(ev.registered_events())
