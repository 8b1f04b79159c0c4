"""TraceStore: the trace core's derived state, a projection of the TRACE, RECEIPTS and SPANS
topics.

Every ``apply`` is an idempotent, monotonic merge keyed by the ids the events carry:
a record is created once, an operation moves from pending to final once, an interaction
finishes once (the first finish in log order wins; writers serialise finishes per
conversation). Applying an event twice, or the live service's read-your-writes copy and
then the consumer's copy, leaves the store unchanged. Records from different topics never
overwrite each other, so the store does not depend on how the topics interleave: a store
rebuilt from offset zero has the same :meth:`digest` as the live one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import EventRecord
from bkn_common.framework.digest import state_digest
from bkn_common.infra.span_scope import INTERACTION_ATTRIBUTE, OPERATION_ATTRIBUTE
from trace_recorder.domain.model import (
    Conversation,
    Evidence,
    Interaction,
    Operation,
    Receipt,
    Seal,
    Span,
)
from trace_recorder.domain.rules import evidence_id
from trace_recorder.service_layer.search import TraceQuery, memory_conversations, memory_interactions
from trace_recorder.service_layer.view_ports import InteractionRecords, Position


def _ts(value: datetime) -> str:
    return value.isoformat()


class TraceStore:
    """In-memory projection of the trace core (the :class:`TraceView` in memory, and the fold
    the SQL adapters run on each batch); see the module docstring."""

    def __init__(self) -> None:
        self._positions: dict[Position, int] = {}
        self.conversations: dict[str, Conversation] = {}
        self.interactions: dict[str, Interaction] = {}
        self.operations: dict[str, Operation] = {}
        self.evidence: dict[str, Evidence] = {}
        self.receipts: dict[str, Receipt] = {}
        self.spans: dict[str, dict[str, Span]] = {}
        self.seals: dict[tuple[str, int], Seal] = {}
        # indexes, derived from the maps above (not part of the digest)
        self._ops_by_interaction: dict[str, set[str]] = defaultdict(set)
        self._op_by_key: dict[str, str] = {}
        self._evidence_by_op: dict[str, set[str]] = defaultdict(set)
        self._receipts_by_op: dict[str, set[str]] = defaultdict(set)
        self._spans_by_op: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self._spans_by_interaction: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self._by_host_key: dict[tuple[str, str], str] = {}
        self._by_invocation: dict[tuple[str, str], str] = {}

    # ------------------------------------------------------------------ projection

    def apply(self, record: EventRecord) -> None:
        """Projection entry point (ProjectionRunner, ``clctl replay``)."""
        self.apply_event(record.event)

    def apply_events(self, events: Sequence[ev.Event]) -> None:
        for event in events:
            self.apply_event(event)

    async def apply_batch(self, events: Sequence[ev.Event], positions: Mapping[Position, int]) -> None:
        self.apply_events(events)
        self._positions.update(positions)

    def positions(self) -> dict[Position, int]:
        return dict(self._positions)

    def apply_event(self, event: ev.Event) -> None:
        """Apply one event idempotently; events of other types are ignored."""
        match event:
            case ev.InteractionStarted():
                self._started(event)
            case ev.InteractionFinished():
                self._finished(event)
            case ev.OperationRecorded():
                self._operation(event)
            case ev.EvidenceRecorded():
                self._evidence(event)
            case ev.ExecutionReceiptRecorded():
                self._receipt(event)
            case ev.SpansExported():
                for span in event.spans:
                    self._span(span)
            case ev.SpanExported():
                self._span(event)
            case ev.InteractionSealed():
                self._sealed(event)

    def _started(self, e: ev.InteractionStarted) -> None:
        conversation = self.conversations.get(e.conversation_id)
        if conversation is None:
            conversation = Conversation(
                conversation_id=e.conversation_id, account=e.account, agent_name=e.agent_name,
                created_at=_ts(e.started_at), host_conversation_key=e.host_conversation_key,
            )
            self.conversations[e.conversation_id] = conversation
            if e.host_conversation_key:
                self._by_host_key[(e.account, e.host_conversation_key)] = e.conversation_id
        conversation.interaction_ids.add(e.interaction_id)
        if e.interaction_id in self.interactions:
            return
        self.interactions[e.interaction_id] = Interaction(
            interaction_id=e.interaction_id, conversation_id=e.conversation_id,
            account=e.account, agent_name=e.agent_name, question=e.question,
            capture_enabled=e.capture_enabled, started_at=_ts(e.started_at),
            new_conversation=e.new_conversation, invocation_id=e.invocation_id,
            input_hash=e.input_hash,
        )
        if e.invocation_id:
            self._by_invocation[(e.account, e.invocation_id)] = e.interaction_id

    def _finished(self, e: ev.InteractionFinished) -> None:
        interaction = self.interactions.get(e.interaction_id)
        if interaction is None or not interaction.active:
            return  # unknown (truncated log) or already finished: first finish wins
        interaction.status = "abandoned" if e.outcome == "abandoned" else "finished"
        interaction.outcome = e.outcome
        interaction.answer = e.answer
        interaction.reason = e.reason
        interaction.execution_status = e.execution_status
        interaction.evidence_status = e.evidence_status
        interaction.unrecorded_calls = e.unrecorded_calls
        interaction.operations_at_finish = e.operations
        interaction.finished_at = _ts(e.finished_at)

    def _operation(self, e: ev.OperationRecorded) -> None:
        op = self.operations.get(e.operation_id)
        if op is None:
            op = Operation(
                operation_id=e.operation_id, operation_key=e.operation_key,
                conversation_id=e.conversation_id, interaction_id=e.interaction_id,
                tool_name=e.tool_name, input_hash=e.input_hash, receipt_id=e.receipt_id,
                receipt_status="pending", evidence_durability="pending",
                begun_at=_ts(e.begun_at or e.recorded_at), correlation=e.correlation,
            )
            self.operations[e.operation_id] = op
            self._ops_by_interaction[e.interaction_id].add(e.operation_id)
            self._op_by_key[e.operation_key] = e.operation_id
        for item in e.evidence:  # created once each, as their own records would be
            self._add_evidence(Evidence(
                evidence_id=item.evidence_id, operation_id=e.operation_id,
                interaction_id=e.interaction_id, evidence_type=item.evidence_type,
                attempt=item.attempt, attributes=dict(item.attributes),
                source_refs=list(item.source_refs), recorded_at=_ts(e.recorded_at),
            ))
        if op.final or e.receipt_status == "pending":
            return  # pending never overwrites a final record; the first final one wins
        op.receipt_status = e.receipt_status
        op.evidence_durability = e.evidence_durability
        op.completed_at = _ts(e.recorded_at)
        op.result = e.result
        op.result_omitted = e.result_omitted
        op.execution_receipt_id = e.execution_receipt_id

    def _evidence(self, e: ev.EvidenceRecorded) -> None:
        self._add_evidence(Evidence(
            evidence_id=e.evidence_id, operation_id=e.operation_id,
            interaction_id=e.interaction_id, evidence_type=e.evidence_type, attempt=e.attempt,
            attributes=dict(e.attributes), source_refs=list(e.source_refs),
            recorded_at=_ts(e.recorded_at),
        ))

    def _add_evidence(self, evidence: Evidence) -> None:
        if evidence.evidence_id in self.evidence:
            return
        self.evidence[evidence.evidence_id] = evidence
        self._evidence_by_op[evidence.operation_id].add(evidence.evidence_id)

    def _receipt(self, e: ev.ExecutionReceiptRecorded) -> None:
        kept = self.receipts.get(e.receipt_id)
        if kept is not None and (kept.outcome_known or not e.outcome_known):
            return  # the first known outcome stands; a recovered one never replaces it
        self.receipts[e.receipt_id] = Receipt(
            receipt_id=e.receipt_id, operation_id=e.operation_id,
            conversation_id=e.conversation_id, interaction_id=e.interaction_id,
            kn_id=e.kn_id, tool_id=e.tool_id, owner_id=e.owner_id,
            capability_type=e.capability_type, outcome=e.outcome, status_code=e.status_code,
            latency_ms=e.latency_ms, executed_at=_ts(e.executed_at), trace_id=e.trace_id,
            outcome_known=e.outcome_known, record=e.model_dump(mode="json", exclude_none=True),
        )
        if e.operation_id is None:
            return
        self._receipts_by_op[e.operation_id].add(e.receipt_id)
        eid = evidence_id(e.interaction_id or "", e.operation_id, "execution", e.receipt_id)
        self.evidence[eid] = Evidence(
            evidence_id=eid, operation_id=e.operation_id, interaction_id=e.interaction_id or "",
            evidence_type="execution", attempt=1,
            attributes={
                "receipt_id": e.receipt_id, "tool_id": e.tool_id, "kn_id": e.kn_id,
                "capability_type": e.capability_type, "outcome": e.outcome,
                "status_code": e.status_code, "arguments_hash": e.arguments_hash,
                "latency_ms": e.latency_ms, "outcome_known": e.outcome_known,
            },
            source_refs=[f"execution_receipt:{e.receipt_id}"],
            recorded_at=_ts(e.executed_at), origin="receipt",
        )
        self._evidence_by_op[e.operation_id].add(eid)

    def _sealed(self, e: ev.InteractionSealed) -> None:
        key = (e.interaction_id, e.seq)
        if key in self.seals:
            return  # the first seal of a number stands (two replicas may seal at once)
        self.seals[key] = Seal(
            interaction_id=e.interaction_id, seq=e.seq, conversation_id=e.conversation_id,
            length=e.length, entries=[item.model_dump(mode="json") for item in e.entries],
            head=e.head, sealed_at=_ts(e.sealed_at), key_id=e.key_id, signature=e.signature,
        )

    def _span(self, e: ev.SpanExported) -> None:
        trace = self.spans.setdefault(e.trace_id, {})
        if e.span_id in trace:
            return
        trace[e.span_id] = Span(
            trace_id=e.trace_id, span_id=e.span_id, parent_span_id=e.parent_span_id,
            name=e.name, service_name=e.service_name, kind=e.kind,
            start_time_unix_nano=e.start_time_unix_nano,
            end_time_unix_nano=e.end_time_unix_nano, status=e.status,
            attributes=dict(e.attributes),
        )
        ref = (e.trace_id, e.span_id)
        operation_id = e.attributes.get(OPERATION_ATTRIBUTE)
        if isinstance(operation_id, str):
            self._spans_by_op[operation_id].add(ref)
        interaction_id = e.attributes.get(INTERACTION_ATTRIBUTE)
        if isinstance(interaction_id, str):
            self._spans_by_interaction[interaction_id].add(ref)

    # ------------------------------------------------------------------ queries

    def conversation(self, conversation_id: str) -> Conversation | None:
        return self.conversations.get(conversation_id)

    def interaction(self, interaction_id: str) -> Interaction | None:
        return self.interactions.get(interaction_id)

    def operation(self, operation_id: str) -> Operation | None:
        return self.operations.get(operation_id)

    def receipt(self, receipt_id: str) -> Receipt | None:
        return self.receipts.get(receipt_id)

    def interactions_of(self, conversation_id: str) -> list[Interaction]:
        conversation = self.conversations.get(conversation_id)
        found = [self.interactions[i] for i in (conversation.interaction_ids if conversation else ())
                 if i in self.interactions]
        return sorted(found, key=lambda i: (i.started_at, i.interaction_id))

    def interaction_records(self, interaction_id: str) -> InteractionRecords | None:
        interaction = self.interactions.get(interaction_id)
        if interaction is None:
            return None
        operations = self.operations_of(interaction_id)
        return InteractionRecords(
            interaction, operations,
            receipts={o.operation_id: self.receipts_of(o.operation_id) for o in operations},
            evidence={o.operation_id: self.evidence_of(o.operation_id) for o in operations},
            spans=self.spans_of_interaction(interaction_id),
        )

    def seals_of(self, interaction_id: str) -> list[Seal]:
        return sorted((s for (i, _), s in self.seals.items() if i == interaction_id), key=lambda s: s.seq)

    def finished_since(self, since: str, limit: int) -> list[tuple[str, str]]:
        found = sorted((i.finished_at or "", i.interaction_id) for i in self.interactions.values()
                       if not i.active and (i.finished_at or "") >= since)
        return [(interaction_id, finished) for finished, interaction_id in found[:limit]]

    def conversation_by_host_key(self, account: str, host_key: str) -> str | None:
        return self._by_host_key.get((account, host_key))

    def search_interactions(self, query: TraceQuery) -> list[Interaction]:
        return memory_interactions(self, query)

    def search_conversations(self, query: TraceQuery) -> list[Conversation]:
        return memory_conversations(self, query)

    def interaction_by_invocation(self, account: str, invocation_id: str) -> Interaction | None:
        interaction_id = self._by_invocation.get((account, invocation_id))
        return self.interactions.get(interaction_id) if interaction_id else None

    def active_interaction(self, conversation_id: str) -> Interaction | None:
        conversation = self.conversations.get(conversation_id)
        if conversation is None:
            return None
        active = [self.interactions[i] for i in conversation.interaction_ids
                  if i in self.interactions and self.interactions[i].active]
        return max(active, key=lambda i: (i.started_at, i.interaction_id), default=None)

    def operations_of(self, interaction_id: str) -> list[Operation]:
        ops = [self.operations[o] for o in self._ops_by_interaction.get(interaction_id, ())]
        return sorted(ops, key=lambda o: (o.begun_at, o.operation_id))

    def operation_count(self, interaction_id: str) -> int:
        return len(self._ops_by_interaction.get(interaction_id, ()))

    def operation_by_key(self, key: str) -> Operation | None:
        operation_id = self._op_by_key.get(key)
        return self.operations.get(operation_id) if operation_id else None

    def evidence_of(self, operation_id: str) -> list[Evidence]:
        items = [self.evidence[e] for e in self._evidence_by_op.get(operation_id, ())]
        return sorted(items, key=lambda e: (e.evidence_type, e.attempt, e.evidence_id))

    def receipts_of(self, operation_id: str) -> list[Receipt]:
        items = [self.receipts[r] for r in self._receipts_by_op.get(operation_id, ())]
        return sorted(items, key=lambda r: (r.executed_at, r.receipt_id))

    def spans_of_interaction(self, interaction_id: str) -> list[Span]:
        """Spans linked to the interaction: by attribute, by operation, or by receipt trace."""
        refs = set(self._spans_by_interaction.get(interaction_id, ()))
        for op_id in self._ops_by_interaction.get(interaction_id, ()):
            refs |= self._spans_by_op.get(op_id, set())
            for receipt in self.receipts_of(op_id):
                if receipt.trace_id:
                    trace = self.spans.get(receipt.trace_id, {})
                    refs |= {(receipt.trace_id, s) for s in trace}
        spans = [self.spans[t][s] for t, s in refs if s in self.spans.get(t, {})]
        return sorted(spans, key=lambda s: (s.start_time_unix_nano, s.span_id))

    # ------------------------------------------------------------------ retention

    def prune_spans(self, ended_before_unix_nano: int, batch_size: int) -> int:
        doomed = [(t, s) for t, spans in self.spans.items() for s, span in spans.items()
                  if span.end_time_unix_nano < ended_before_unix_nano][:batch_size]
        for trace_id, span_id in doomed:
            span = self.spans[trace_id].pop(span_id)
            ref = (trace_id, span_id)
            for index in (self._spans_by_op, self._spans_by_interaction):
                for refs in index.values():
                    refs.discard(ref)
            if not self.spans[trace_id]:
                del self.spans[trace_id]
            del span
        return len(doomed)

    def close(self) -> None:
        """Nothing to release in memory."""

    # ------------------------------------------------------------------ digest

    def counts(self) -> dict[str, int]:
        return {
            "conversations": len(self.conversations),
            "interactions": len(self.interactions),
            "operations": len(self.operations),
            "evidence": len(self.evidence),
            "receipts": len(self.receipts),
            "spans": sum(len(t) for t in self.spans.values()),
        }

    def snapshot(self) -> dict[str, Any]:
        """The whole store as JSON-able sections (sets sorted, spans keyed trace/span)."""
        conversations = {}
        for cid, conversation in self.conversations.items():
            data = asdict(conversation)
            data["interaction_ids"] = sorted(conversation.interaction_ids)
            conversations[cid] = data
        return {
            "conversations": conversations,
            "interactions": {k: asdict(v) for k, v in self.interactions.items()},
            "operations": {k: asdict(v) for k, v in self.operations.items()},
            "evidence": {k: asdict(v) for k, v in self.evidence.items()},
            "receipts": {k: asdict(v) for k, v in self.receipts.items()},
            "spans": {
                f"{t}/{s}": asdict(v) for t, spans in self.spans.items() for s, v in spans.items()
            },
            "seals": {f"{i}/{n}": asdict(v) for (i, n), v in self.seals.items()},
        }

    def digest(self) -> str:
        """The overall sha256 ``clctl replay --verify`` compares (canonical sorted-key JSON of
        every :meth:`snapshot` section; see ``bkn_common.framework.digest``)."""
        result: str = state_digest(self.snapshot())["sha256"]
        return result

