"""Record keys: every event is keyed by the entity it changes (see the topic catalogue)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bkn_common.contracts import events as ev

_KEYS: dict[type[ev.Event], Callable[[Any], str]] = {
    ev.NetworkUpserted: lambda e: f"kn:{e.kn_id}",
    ev.ObjectTypeUpserted: lambda e: f"ot:{e.kn_id}:{e.id}",
    ev.RelationTypeUpserted: lambda e: f"rt:{e.kn_id}:{e.id}",
    ev.ActionTypeUpserted: lambda e: f"at:{e.kn_id}:{e.id}",
    ev.ConceptGroupUpserted: lambda e: f"cg:{e.kn_id}:{e.id}",
    ev.DataResourceUpserted: lambda e: f"res:{e.id}",
    ev.DataResourceGrantsReplaced: lambda e: f"resgrant:{e.account}",
    ev.ObjectInstanceUpserted: lambda e: f"obj:{e.kn_id}:{e.ot_id}:{e.id}",
    ev.RelationInstanceUpserted: lambda e: f"rel:{e.kn_id}:{e.rt_id}:{e.source_id}:{e.target_id}",
    ev.ToolboxUpserted: lambda e: f"toolbox:{e.id}",
    ev.McpServerUpserted: lambda e: f"mcp_server:{e.id}",
    ev.SkillUpserted: lambda e: f"skill:{e.id}",
    ev.BindingMounted: lambda e: e.kn_id,
    ev.BindingUnmounted: lambda e: e.kn_id,
    ev.BindingsReplaced: lambda e: e.kn_id,
    ev.OwnerStateChanged: lambda e: f"{e.owner_kind}:{e.owner_id}",
    ev.ToolStateChanged: lambda e: f"tool:{e.owner_id}:{e.tool_id}",
    ev.ProxySyncChanged: lambda e: f"proxy:{e.kn_id}",
    ev.ExecutionReceiptRecorded: lambda e: e.receipt_id,
    ev.ActionExecutionRequested: lambda e: e.execution_id,
    ev.ActionExecutionUpdated: lambda e: e.execution_id,
    ev.InteractionStarted: lambda e: e.conversation_id,
    ev.InteractionFinished: lambda e: e.conversation_id,
    ev.InteractionSealed: lambda e: e.conversation_id,
    ev.OperationRecorded: lambda e: e.conversation_id,
    ev.EvidenceRecorded: lambda e: e.interaction_id,
    ev.SpanExported: lambda e: e.trace_id,
    ev.SpansExported: lambda e: e.spans[0].trace_id if e.spans else "",
    ev.KnowledgeFileUpserted: lambda e: f"kbfile:{e.kb_id}:{e.path}",
    ev.KnowledgeFileRemoved: lambda e: f"kbfile:{e.kb_id}:{e.path}",
    ev.KnowledgeBaseApplied: lambda e: f"kb:{e.kb_id}",
}


def event_key(event: ev.Event) -> bytes:
    """The record key of ``event``."""
    return _KEYS[type(event)](event).encode()
