"""The AsyncAPI document: docs/asyncapi.yaml is what the code generates, and it covers the code."""

from __future__ import annotations

import difflib
from pathlib import Path

import yaml

from bkn_common.contracts.asyncapi import RECEIVES, SENDS, asyncapi_document, render_yaml
from bkn_common.contracts.events import registered_events
from bkn_common.contracts.topics import ALL_TOPICS
from tests.support.refs import assert_refs_resolve

SNAPSHOT = Path(__file__).resolve().parents[3] / "docs" / "asyncapi.yaml"
REGENERATE = ".venv/bin/python -m bkn_common.contracts.asyncapi > docs/asyncapi.yaml"


def test_snapshot_matches_the_code() -> None:
    generated = asyncapi_document()
    stored = yaml.safe_load(SNAPSHOT.read_text(encoding="utf-8"))
    if stored != generated:
        diff = difflib.unified_diff(
            SNAPSHOT.read_text(encoding="utf-8").splitlines(),
            render_yaml(generated).splitlines(),
            "docs/asyncapi.yaml", "generated", lineterm="", n=1,
        )
        excerpt = "\n".join(list(diff)[:40])
        raise AssertionError(
            f"docs/asyncapi.yaml is stale; regenerate it from the repo root with\n"
            f"    {REGENERATE}\nand commit it. First differences:\n{excerpt}"
        )


def test_every_topic_is_a_channel() -> None:
    document = asyncapi_document(prefix="t1.")
    channels = document["channels"]
    assert set(channels) == {spec.name for spec in ALL_TOPICS}
    for spec in ALL_TOPICS:
        channel = channels[spec.name]
        assert channel["address"] == f"t1.{spec.name}"
        kafka = channel["bindings"]["kafka"]
        assert kafka["partitions"] == spec.partitions
        assert kafka["topicConfiguration"]["cleanup.policy"] == [spec.cleanup_policy]
        assert channel["x-key"] == spec.key


def test_every_registered_event_is_a_message_on_its_topic() -> None:
    document = asyncapi_document()
    messages = document["components"]["messages"]
    assert set(registered_events()) <= set(messages)
    for spec in ALL_TOPICS:
        on_channel = set(document["channels"][spec.name]["messages"])
        assert {event.type for event in spec.events} <= on_channel
        for event in spec.events:
            assert messages[event.type]["x-schema-version"] == event.schema_version


def test_every_event_payload_is_the_envelope_with_data() -> None:
    document = asyncapi_document()
    schemas = document["components"]["schemas"]
    for name, event in registered_events().items():
        payload = document["components"]["messages"][name]["payload"]
        assert "data" in payload["properties"], name
        assert "data" in payload["required"], name
        assert payload["properties"]["type"]["const"] == name
        data_ref: str = payload["properties"]["data"]["$ref"]
        data_schema = schemas[data_ref.rsplit("/", 1)[1]]
        assert set(data_schema["properties"]) == set(event.model_fields), name


def test_every_reference_resolves() -> None:
    document = asyncapi_document()
    assert_refs_resolve(document)


def test_operations_follow_the_table() -> None:
    operations = asyncapi_document()["operations"]
    for table, action in ((SENDS, "send"), (RECEIVES, "receive")):
        for process, shorts in table.items():
            for short in shorts:
                operation = operations[f"{process}.{action}.{short}"]
                assert operation["x-service"] == process
    wired_receives = {
        (op["x-service"], op["channel"]["$ref"].rsplit("/", 1)[1])
        for op in operations.values() if op["action"] == "receive"
    }
    assert ("capability-index", "bkn.catalog.v1") in wired_receives
    assert ("trace-recorder", "bkn.execution-receipts.v1") in wired_receives
