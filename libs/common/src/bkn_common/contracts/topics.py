"""The topic catalogue: every Kafka topic of the mesh, in one place.

Names carry a version suffix; an optional prefix (``TOPIC_PREFIX``) isolates test runs or
tenants sharing one cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bkn_common.contracts.events import (
    ActionExecutionRequested,
    ActionExecutionUpdated,
    ActionTypeUpserted,
    BindingMounted,
    BindingsReplaced,
    BindingUnmounted,
    ConceptGroupUpserted,
    DataResourceGrantsReplaced,
    DataResourceUpserted,
    Event,
    EvidenceRecorded,
    ExecutionReceiptRecorded,
    InteractionFinished,
    InteractionSealed,
    InteractionStarted,
    KnowledgeBaseApplied,
    KnowledgeFileRemoved,
    KnowledgeFileUpserted,
    McpServerUpserted,
    NetworkUpserted,
    ObjectInstanceUpserted,
    ObjectTypeUpserted,
    OperationRecorded,
    OwnerStateChanged,
    ProxySyncChanged,
    RelationInstanceUpserted,
    RelationTypeUpserted,
    SkillUpserted,
    SpanExported,
    SpansExported,
    ToolboxUpserted,
    ToolStateChanged,
)


@dataclass(frozen=True)
class TopicSpec:
    """A topic: its name, sizing, retention and what its record key is."""

    name: str
    partitions: int
    cleanup_policy: Literal["delete", "compact"]
    key: str
    description: str
    events: tuple[type[Event], ...] = ()
    retention_ms: int = -1
    max_message_bytes: int = 1_048_588
    extra_config: dict[str, str] = field(default_factory=dict)

    def full_name(self, prefix: str = "") -> str:
        return f"{prefix}{self.name}"

    def config(self) -> dict[str, str]:
        return {
            "cleanup.policy": self.cleanup_policy,
            "retention.ms": str(self.retention_ms),
            "max.message.bytes": str(self.max_message_bytes),
            **self.extra_config,
        }


NETWORKS = TopicSpec(
    name="bkn.networks.v1",
    partitions=1,
    cleanup_policy="compact",
    key="entity id: kn:<kn_id>, ot:<kn>:<id>, rt:<kn>:<id>, at:<kn>:<id>, cg:<kn>:<id>, "
        "res:<id>, resgrant:<account>",
    description="Networks and their schema: object, relation and action types, concept groups; "
                "data resources and the accounts' resource grants.",
    events=(NetworkUpserted, ObjectTypeUpserted, RelationTypeUpserted, ActionTypeUpserted,
            ConceptGroupUpserted, DataResourceUpserted, DataResourceGrantsReplaced),
)
INSTANCES = TopicSpec(
    name="bkn.instances.v1",
    partitions=6,
    cleanup_policy="compact",
    key="obj:<kn>:<ot>:<id> or rel:<kn>:<rt>:<source>:<target>",
    description="Object instances and relation instances.",
    events=(ObjectInstanceUpserted, RelationInstanceUpserted),
)
CATALOG = TopicSpec(
    name="bkn.catalog.v1",
    partitions=1,
    cleanup_policy="compact",
    key="toolbox:<id>, mcp_server:<id>, skill:<id>",
    description="Toolboxes (OpenAPI or function) with their tools, MCP servers, skills.",
    events=(ToolboxUpserted, McpServerUpserted, SkillUpserted),
    max_message_bytes=16 * 1024 * 1024,
)
BINDINGS = TopicSpec(
    name="bkn.bindings.v1",
    partitions=3,
    cleanup_policy="delete",
    key="kn_id (per-network order is the binding order)",
    description="Capabilities mounted on and unmounted from networks.",
    events=(BindingMounted, BindingUnmounted, BindingsReplaced),
)
LIFECYCLE = TopicSpec(
    name="bkn.lifecycle.v1",
    partitions=3,
    cleanup_policy="compact",
    key="toolbox:<id>, mcp_server:<id>, tool:<owner>:<id>, proxy:<kn_id>",
    description="Publish state of toolboxes and MCP servers, tool enablement, proxy sync.",
    events=(OwnerStateChanged, ToolStateChanged, ProxySyncChanged),
)
RECEIPTS = TopicSpec(
    name="bkn.execution-receipts.v1",
    partitions=3,
    cleanup_policy="delete",
    key="receipt_id",
    description="One receipt per dispatched tool execution (tool-executor).",
    events=(ExecutionReceiptRecorded,),
)
ACTIONS = TopicSpec(
    name="bkn.action-executions.v1",
    partitions=3,
    cleanup_policy="delete",
    key="execution_id",
    description="Action execution requests (gateway) and their progress (tool-executor).",
    events=(ActionExecutionRequested, ActionExecutionUpdated),
)
TRACE = TopicSpec(
    name="bkn.trace.v1",
    partitions=3,
    cleanup_policy="delete",
    key="conversation_id",
    description="Provenance records: interactions, operations, evidence, seals (trace-recorder).",
    events=(InteractionStarted, InteractionFinished, OperationRecorded, EvidenceRecorded,
            InteractionSealed),
)
SPANS = TopicSpec(
    name="bkn.spans.v1",
    partitions=3,
    cleanup_policy="delete",
    key="trace_id",
    description="Finished OpenTelemetry spans from every service: one record per export batch "
    "(keyed by its first span's trace id); single-span records of before still decode.",
    events=(SpansExported, SpanExported),
    retention_ms=7 * 24 * 3600 * 1000,
)

KNOWLEDGE_FILES = TopicSpec(
    name="bkn.knowledge-files.v1",
    partitions=3,
    cleanup_policy="compact",
    key="kbfile:<kb_id>:<path>",
    description="Source files of knowledge bases (whole Markdown), and removals.",
    events=(KnowledgeFileUpserted, KnowledgeFileRemoved),
    max_message_bytes=16 * 1024 * 1024,
)
KNOWLEDGE_BASES = TopicSpec(
    name="bkn.knowledge-bases.v1",
    partitions=1,
    cleanup_policy="compact",
    key="kb:<kb_id>",
    description="Knowledge bases: name, readers, activeContentRevision and the manifest of each apply.",
    events=(KnowledgeBaseApplied,),
    max_message_bytes=16 * 1024 * 1024,
)

DOMAIN_TOPICS: tuple[TopicSpec, ...] = (
    NETWORKS, INSTANCES, CATALOG, BINDINGS, LIFECYCLE, RECEIPTS, ACTIONS, TRACE, SPANS,
    KNOWLEDGE_FILES, KNOWLEDGE_BASES,
)


def dead_letter_topic(consumer: str) -> TopicSpec:
    """The dead-letter topic of one consumer (poison records land here with the reason)."""
    return TopicSpec(
        name=f"bkn.dlq.{consumer}.v1",
        partitions=1,
        cleanup_policy="delete",
        key="original record key",
        description=f"Records {consumer} could not apply, with reason headers.",
        retention_ms=30 * 24 * 3600 * 1000,
        max_message_bytes=16 * 1024 * 1024,
    )


@dataclass(frozen=True)
class ConsumerTopics:
    """What one consuming service reads.

    ``projection``: folded into the service's rebuildable store by its ProjectionRunner
    (from offset zero, or from a checkpoint's offsets), and what `clctl replay` folds.
    ``group``: read as work in a Kafka consumer group (each record handled once per group).
    """

    projection: tuple[TopicSpec, ...]
    group: tuple[TopicSpec, ...] = ()

    @property
    def reads(self) -> tuple[TopicSpec, ...]:
        return self.projection + tuple(t for t in self.group if t not in self.projection)


CONSUMER_TOPICS: dict[str, ConsumerTopics] = {
    "capability-index": ConsumerTopics(projection=(CATALOG, BINDINGS, LIFECYCLE)),
    "tool-executor": ConsumerTopics(projection=(NETWORKS, CATALOG, BINDINGS, LIFECYCLE), group=(ACTIONS,)),
    "trace-recorder": ConsumerTopics(projection=(TRACE, RECEIPTS, SPANS)),
    "ontology-query": ConsumerTopics(projection=(NETWORKS, INSTANCES, BINDINGS, ACTIONS)),
    "knowledge-base": ConsumerTopics(projection=(KNOWLEDGE_FILES, KNOWLEDGE_BASES)),
}
"""The one table of which topics each consumer reads: bootstraps, `clctl replay`, the AsyncAPI
document and the tests all take it from here."""

CONSUMERS: tuple[str, ...] = tuple(CONSUMER_TOPICS)
ALL_TOPICS: tuple[TopicSpec, ...] = DOMAIN_TOPICS + tuple(dead_letter_topic(c) for c in CONSUMERS)


def projection_topics(consumer: str) -> tuple[TopicSpec, ...]:
    """The topics ``consumer`` folds into its store (KeyError for an unknown consumer)."""
    return CONSUMER_TOPICS[consumer].projection


def topic_for_event(event: Event) -> TopicSpec:
    """The one topic an event type belongs on."""
    for spec in DOMAIN_TOPICS:
        if type(event) in spec.events:
            return spec
    raise LookupError(f"no topic carries {event.type}")
