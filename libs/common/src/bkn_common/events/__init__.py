"""Event contracts of the mesh. Importing this package registers every event type."""

from bkn_common.events.base import (
    Event,
    EventRecord,
    PoisonMessage,
    decode_event,
    encode_event,
    register_event,
    register_upcaster,
    registered_events,
)
from bkn_common.events.binding import (
    BindingMounted,
    BindingsReplaced,
    BindingUnmounted,
    CapabilityRef,
    CapabilityType,
    OwnerStateChanged,
    ProxySyncChanged,
    ToolStateChanged,
)
from bkn_common.events.catalog import (
    FunctionCode,
    McpServerUpserted,
    McpToolSpec,
    OpenApiOperation,
    OpenApiParameter,
    SkillUpserted,
    ToolboxUpserted,
    ToolSpec,
)
from bkn_common.events.execution import (
    ActionExecutionRequested,
    ActionExecutionUpdated,
    ActionTarget,
    ActionTargetResult,
    ExecutionReceiptRecorded,
)
from bkn_common.events.knowledge_base import (
    KnowledgeBaseApplied,
    KnowledgeFileRemoved,
    KnowledgeFileUpserted,
)
from bkn_common.events.network import (
    ActionTypeUpserted,
    ConceptGroupUpserted,
    DataProperty,
    LogicProperty,
    NetworkGrant,
    NetworkUpserted,
    ObjectInstanceUpserted,
    ObjectTypeUpserted,
    RelationInstanceUpserted,
    RelationTypeUpserted,
    ResourceGrant,
)
from bkn_common.events.trace import (
    EvidenceRecorded,
    InteractionFinished,
    InteractionStarted,
    OperationRecorded,
    SpanExported,
)

__all__ = [
    "ActionExecutionRequested", "ActionExecutionUpdated", "ActionTarget", "ActionTargetResult",
    "ActionTypeUpserted", "BindingMounted", "BindingUnmounted", "BindingsReplaced", "CapabilityRef", "CapabilityType",
    "ConceptGroupUpserted", "DataProperty", "Event", "EventRecord", "EvidenceRecorded",
    "ExecutionReceiptRecorded", "FunctionCode", "InteractionFinished", "InteractionStarted",
    "KnowledgeBaseApplied", "KnowledgeFileRemoved", "KnowledgeFileUpserted",
    "LogicProperty", "McpServerUpserted", "McpToolSpec", "NetworkGrant", "NetworkUpserted",
    "ObjectInstanceUpserted", "ObjectTypeUpserted", "OpenApiOperation", "OpenApiParameter",
    "OperationRecorded", "OwnerStateChanged", "PoisonMessage", "ProxySyncChanged",
    "RelationInstanceUpserted", "RelationTypeUpserted", "ResourceGrant", "SkillUpserted",
    "SpanExported", "ToolSpec", "ToolStateChanged", "ToolboxUpserted", "decode_event",
    "encode_event", "register_event", "register_upcaster", "registered_events",
]
