"""The mesh's topics as an AsyncAPI 3.0 document, generated from the code.

Channels come from the topic catalogue (:data:`bkn_common.contracts.topics.ALL_TOPICS`), messages from
the event types each topic carries (payload: the event's pydantic JSON schema inside the wire
envelope), operations from the small table below of which process sends and receives which
topic. ``docs/asyncapi.yaml`` is this document, snapshot-tested::

    python -m bkn_common.contracts.asyncapi > docs/asyncapi.yaml
"""

from __future__ import annotations

import argparse
from importlib.metadata import version
from typing import Any

from pydantic.json_schema import models_json_schema

from bkn_common.contracts.events import Event
from bkn_common.contracts.topics import ALL_TOPICS, CONSUMER_TOPICS, CONSUMERS, TopicSpec

Doc = dict[str, Any]

KAFKA_BINDING_VERSION = "0.5.0"
SCHEMA_REF = "#/components/schemas/{model}"
DEAD_LETTER_MESSAGE = "dead-letter"

SERVICES: tuple[str, ...] = (
    "gateway", "capability-index", "tool-executor", "trace-recorder", "ontology-query",
)
"""The long-running services (``clctl`` is the operator CLI, not a service)."""


def short_name(spec: TopicSpec) -> str:
    """``bkn.execution-receipts.v1`` -> ``execution-receipts``; ``bkn.dlq.x.v1`` -> ``dlq.x``."""
    name = spec.name.removeprefix("bkn.")
    return name.rsplit(".v", 1)[0]


_OWN_SENDS: dict[str, tuple[str, ...]] = {
    "clctl": ("networks", "instances", "catalog", "bindings", "lifecycle"),
    "tool-executor": ("execution-receipts", "action-executions"),
    "gateway": ("action-executions",),
    "trace-recorder": ("trace",),
}
SENDS: dict[str, tuple[str, ...]] = {
    process: _OWN_SENDS.get(process, ()) + (("spans",) if process in SERVICES else ())
    for process in ("clctl", *SERVICES)
}
"""Producers by topic short name (``bkn.<short>.v1``): the table above, plus ``spans`` from
every service."""

RECEIVES: dict[str, tuple[str, ...]] = {
    consumer: tuple(short_name(spec) for spec in topics.reads)
    for consumer, topics in CONSUMER_TOPICS.items()
}
"""Consumers by topic short name, from :data:`bkn_common.contracts.topics.CONSUMER_TOPICS` (each folds its
projection topics in a ProjectionRunner; tool-executor also reads action requests in a group)."""


def _topic(short: str) -> TopicSpec:
    for spec in ALL_TOPICS:
        if short_name(spec) == short:
            return spec
    raise LookupError(f"the operations table names an unknown topic {short!r}")


def _summary(cls: type[Any]) -> str | None:
    doc = cls.__dict__.get("__doc__")
    return doc.strip().splitlines()[0] if doc else None


def _event_types() -> list[type[Event]]:
    return [event for spec in ALL_TOPICS for event in spec.events]


def _schemas(events: list[type[Event]]) -> tuple[dict[str, str], Doc]:
    """Each event's component schema name, and every component schema (events and parts)."""
    refs, top = models_json_schema(
        [(event, "validation") for event in events], ref_template=SCHEMA_REF
    )
    names = {
        event.type: refs[(event, "validation")]["$ref"].rsplit("/", 1)[1] for event in events
    }
    return names, dict(sorted(top.get("$defs", {}).items()))


def _envelope(event: type[Event], schema_name: str) -> Doc:
    """The wire form ``encode_event`` writes around the event's data."""
    return {
        "type": "object",
        "required": ["type", "schema_version", "event_id", "occurred_at", "data"],
        "properties": {
            "type": {"type": "string", "const": event.type},
            "schema_version": {"type": "integer", "const": event.schema_version},
            "event_id": {"type": "string", "description": "Unique id of this record."},
            "occurred_at": {"type": "string", "format": "date-time"},
            "data": {"$ref": SCHEMA_REF.format(model=schema_name)},
        },
    }


def _message(event: type[Event], spec: TopicSpec, schema_name: str) -> Doc:
    message: Doc = {
        "name": event.type,
        "title": event.__name__,
        "contentType": "application/json",
        "x-schema-version": event.schema_version,
        "payload": _envelope(event, schema_name),
        "bindings": {
            "kafka": {
                "key": {"type": "string", "description": spec.key},
                "bindingVersion": KAFKA_BINDING_VERSION,
            }
        },
    }
    summary = _summary(event)
    if summary:
        message["summary"] = summary
    return message


def _dead_letter_message() -> Doc:
    headers = {
        "dlq.reason": "Why the record could not be applied.",
        "dlq.consumer": "The consumer that gave up on it.",
        "dlq.topic": "The topic it was read from.",
        "dlq.partition": "Its partition there.",
        "dlq.offset": "Its offset there.",
    }
    return {
        "name": DEAD_LETTER_MESSAGE,
        "title": "Dead-lettered record",
        "summary": "A record a consumer could not apply, copied with its original key and value.",
        "headers": {
            "type": "object",
            "required": list(headers),
            "properties": {k: {"type": "string", "description": d} for k, d in headers.items()},
        },
        "payload": {"description": "The original record value, byte for byte (maybe not JSON)."},
    }


def _channel(spec: TopicSpec, prefix: str) -> Doc:
    messages = [e.type for e in spec.events] or [DEAD_LETTER_MESSAGE]
    channel: Doc = {
        "address": spec.full_name(prefix),
        "description": spec.description,
        "x-key": spec.key,
        "x-partitions": spec.partitions,
        "x-cleanup-policy": spec.cleanup_policy,
        "messages": {m: {"$ref": f"#/components/messages/{m}"} for m in messages},
        "bindings": {
            "kafka": {
                "topic": spec.full_name(prefix),
                "partitions": spec.partitions,
                "topicConfiguration": {
                    "cleanup.policy": [spec.cleanup_policy],
                    "retention.ms": spec.retention_ms,
                    "max.message.bytes": spec.max_message_bytes,
                },
                "bindingVersion": KAFKA_BINDING_VERSION,
            }
        },
    }
    if spec.extra_config:  # the binding's topicConfiguration has no room for other keys
        channel["x-extra-config"] = dict(spec.extra_config)
    return channel


def _operation(process: str, action: str, spec: TopicSpec) -> Doc:
    messages = [e.type for e in spec.events] or [DEAD_LETTER_MESSAGE]
    verb = "publishes to" if action == "send" else "folds"
    operation: Doc = {
        "action": action,
        "channel": {"$ref": f"#/channels/{spec.name}"},
        "summary": f"{process} {verb} {spec.name}",
        "messages": [{"$ref": f"#/channels/{spec.name}/messages/{m}"} for m in messages],
        "x-service": process,
    }
    return operation


def _operations() -> Doc:
    rows: list[tuple[str, str, TopicSpec]] = []
    for process, shorts in SENDS.items():
        rows += [(process, "send", _topic(s)) for s in shorts]
    for process, shorts in RECEIVES.items():
        rows += [(process, "receive", _topic(s)) for s in shorts]
    # Every ProjectionRunner dead-letters what it cannot apply to its own topic.
    rows += [(consumer, "send", _topic(f"dlq.{consumer}")) for consumer in CONSUMERS]
    return {
        f"{process}.{action}.{short_name(spec)}": _operation(process, action, spec)
        for process, action, spec in rows
    }


def asyncapi_document(prefix: str = "") -> dict[str, Any]:
    """The AsyncAPI 3.0 document of every topic, with addresses under ``prefix``."""
    events = _event_types()
    schema_names, schemas = _schemas(events)
    messages: Doc = {
        event.type: _message(event, spec, schema_names[event.type])
        for spec in ALL_TOPICS
        for event in spec.events
    }
    messages[DEAD_LETTER_MESSAGE] = _dead_letter_message()
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Context Loader mesh events",
            "version": version("bkn-common"),
            "description": (
                "Every Kafka topic of the mesh, generated from bkn_common.contracts.topics and "
                "bkn_common.contracts.events. Records are JSON envelopes keyed by the entity they change; "
                "producers use acks=all with idempotence."
            ),
        },
        "defaultContentType": "application/json",
        "servers": {
            "kafka": {
                "host": "{bootstrap}",
                "protocol": "kafka",
                "description": "The Kafka cluster of the deployment (KAFKA_BOOTSTRAP_SERVERS).",
                "variables": {"bootstrap": {"default": "127.0.0.1:9092"}},
            }
        },
        "channels": {spec.name: _channel(spec, prefix) for spec in ALL_TOPICS},
        "operations": _operations(),
        "components": {"messages": messages, "schemas": schemas},
    }


def render_yaml(document: dict[str, Any]) -> str:
    """The document as YAML, keys in document order."""
    import yaml  # only the CLI and the snapshot test need YAML

    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)


def main(argv: list[str] | None = None) -> None:
    """Print the document as YAML (``python -m bkn_common.contracts.asyncapi > docs/asyncapi.yaml``)."""
    parser = argparse.ArgumentParser(prog="python -m bkn_common.contracts.asyncapi", description=__doc__)
    parser.add_argument("--prefix", default="", help="topic prefix (TOPIC_PREFIX) for addresses")
    args = parser.parse_args(argv)
    print(render_yaml(asyncapi_document(args.prefix)), end="")


if __name__ == "__main__":
    main()
