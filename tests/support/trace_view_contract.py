"""The one contract every adapter of trace-recorder's ``TraceView`` port passes.

A test module subclasses :class:`TraceViewContract` and provides the ``opener`` fixture: a
callable that opens the SAME storage every time it is called (fresh storage per test). The
memory adapter cannot be reopened; it sets ``durable = False`` and skips what needs that.
The in-memory fold (``TraceStore``) is the reference: every adapter must reach its digest.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from bkn_common.infra.span_scope import INTERACTION_ATTRIBUTE, OPERATION_ATTRIBUTE
from bkn_common.provenance.bundle import verify_bundle
from bkn_common.provenance.keys import Keyring, keyring_from_jwks, new_keyring
from bkn_common.provenance.receipts import sign_receipt
from trace_recorder.adapters.memory_coordination import MemoryCoordination
from trace_recorder.adapters.memory_event_sink import MemoryEventSink
from trace_recorder.domain.rules import evidence_id
from trace_recorder.service_layer.bundle import interaction_bundle
from trace_recorder.service_layer.policy import Policy
from trace_recorder.service_layer.recording import Core
from trace_recorder.service_layer.retention import prune
from trace_recorder.service_layer.sealing import Sealer
from trace_recorder.service_layer.store import TraceStore
from trace_recorder.service_layer.view_ports import StoreUnavailable, TraceView

Opener = Callable[[], TraceView]
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def wire(events: list[ev.Event]) -> list[ev.Event]:
    """The events as a consumer decodes them from the log."""
    return [decode_event(encode_event(e)).event for e in events]


class Turns:
    """Builders of realistic records: ``n`` names the turn (conversation, interaction...)."""

    @staticmethod
    def start(n: int, conversation: int | None = None, **kw: Any) -> ev.InteractionStarted:
        return ev.InteractionStarted.model_validate({
            "conversation_id": f"conv_{n if conversation is None else conversation}",
            "interaction_id": f"int_{n}", "new_conversation": conversation is None,
            "account": "alice", "agent_name": "agent", "question": f"question {n}?",
            "started_at": at(n), **kw})

    @staticmethod
    def finish(n: int, outcome: str = "completed", conversation: int | None = None,
               **kw: Any) -> ev.InteractionFinished:
        return ev.InteractionFinished.model_validate({
            "conversation_id": f"conv_{n if conversation is None else conversation}",
            "interaction_id": f"int_{n}", "outcome": outcome,
            "answer": f"answer {n}" if outcome == "completed" else None,
            "reason": None if outcome == "completed" else "stopped",
            "execution_status": "succeeded", "evidence_status": "complete",
            "finished_at": at(n + 0.5), "operations": 1, **kw})

    @staticmethod
    def op(n: int, k: int = 0, status: str = "pending", **kw: Any) -> ev.OperationRecorded:
        return ev.OperationRecorded.model_validate({
            "operation_id": f"op_{n}_{k}", "operation_key": f"key_{n}_{k}",
            "conversation_id": f"conv_{n}", "interaction_id": f"int_{n}", "tool_name": "lookup",
            "input_hash": f"h{n}{k}", "receipt_id": f"rcpt_{n}_{k}", "receipt_status": status,
            "evidence_durability": "pending" if status == "pending" else "durable",
            "recorded_at": at(n + 0.1 * (k + 1) + (0.05 if status != "pending" else 0)),
            "correlation": f"call-{k}", **kw})

    @staticmethod
    def evidence(n: int, k: int = 0, attempt: int = 1) -> ev.EvidenceRecorded:
        return ev.EvidenceRecorded(
            evidence_id=evidence_id(f"int_{n}", f"op_{n}_{k}", "retrieval", attempt),
            operation_id=f"op_{n}_{k}", interaction_id=f"int_{n}", evidence_type="retrieval",
            attempt=attempt, attributes={"query_hash": f"q{attempt}", "candidates": 3},
            source_refs=(f"object_instance:kn:ot:{attempt}",), recorded_at=at(n + 0.2))

    @staticmethod
    def receipt(n: int, k: int = 0, known: bool = True, outcome: str = "succeeded",
                rid: str | None = None) -> ev.ExecutionReceiptRecorded:
        return ev.ExecutionReceiptRecorded(
            receipt_id=rid or f"exec_{n}_{k}", operation_id=f"op_{n}_{k}",
            conversation_id=f"conv_{n}", interaction_id=f"int_{n}", kn_id="kn", owner_id="box",
            tool_id="tool", capability_type="function", caller="alice", proxy_id="px",
            arguments_hash="ah", outcome=outcome, latency_ms=2.5, executed_at=at(n + 0.3),
            trace_id=f"trace_{n}", outcome_known=known)

    @staticmethod
    def span(n: int, s: int, *, trace: str | None = None, end: int | None = None,
             **attributes: Any) -> ev.SpanExported:
        start = int(at(n).timestamp() * 1e9) + s * 1000
        return ev.SpanExported(
            trace_id=trace or f"trace_{n}", span_id=f"span_{n}_{s}", name=f"step {s}",
            service_name="svc", kind="internal", start_time_unix_nano=start,
            end_time_unix_nano=end if end is not None else start + 500, status="ok",
            attributes=attributes)

    @classmethod
    def turn(cls, n: int, ops: int = 2) -> list[ev.Event]:
        out: list[ev.Event] = [cls.start(n)]
        for k in range(ops):
            out += [cls.op(n, k), cls.evidence(n, k, 1), cls.evidence(n, k, 2),
                    cls.op(n, k, "completed", result={"rows": k}), cls.receipt(n, k),
                    cls.span(n, 10 * k, **{OPERATION_ATTRIBUTE: f"op_{n}_{k}"}),
                    cls.span(n, 10 * k + 1)]
        out += [cls.span(n, 99, trace=f"other_{n}", **{INTERACTION_ATTRIBUTE: f"int_{n}"}),
                cls.finish(n)]
        return out


def reference(events: list[ev.Event]) -> TraceStore:
    store = TraceStore()
    store.apply_events(wire(events))
    return store


def batch(view: TraceView, events: list[ev.Event], positions: dict[tuple[str, int], int] | None = None) -> None:
    asyncio.run(view.apply_batch(wire(events), positions or {}))


KEYRING: Keyring = keyring_from_jwks(new_keyring())


def signed(events: list[ev.Event]) -> list[ev.Event]:
    """The receipts among ``events`` signed with :data:`KEYRING`'s receipt key."""
    key = KEYRING.signer("receipt", T0)
    assert key is not None
    return [sign_receipt(e, key) if isinstance(e, ev.ExecutionReceiptRecorded) else e for e in events]


def sealer_of(view: TraceView) -> tuple[Sealer, MemoryEventSink]:
    sink = MemoryEventSink()
    core = Core(view, sink, MemoryCoordination(), Policy(), clock=lambda: at(100))
    return Sealer(core, KEYRING, clock=lambda: at(100)), sink


def wire_json(document: dict[str, Any]) -> dict[str, Any]:
    """A bundle as a file carries it (JSON text and back)."""
    import json

    loaded: dict[str, Any] = json.loads(json.dumps(document))
    return loaded


class TraceViewContract:
    durable = True

    @pytest.fixture
    def opener(self) -> Opener:
        raise NotImplementedError

    @pytest.fixture
    def view(self, opener: Opener) -> Iterator[TraceView]:
        opened = opener()
        yield opened
        opened.close()

    # ------------------------------------------------------------------ folding

    def test_a_folded_log_has_the_reference_digest(self, view: TraceView) -> None:
        events = [e for n in range(4) for e in Turns.turn(n)]
        batch(view, events)
        assert view.digest() == reference(events).digest()
        assert view.counts() == {"conversations": 4, "interactions": 4, "operations": 8,
                                 "evidence": 24, "receipts": 8, "spans": 20}

    def test_any_split_into_batches_and_redelivery_changes_nothing(self, view: TraceView) -> None:
        events = [e for n in range(3) for e in Turns.turn(n)]
        rng = random.Random(7)
        cuts = sorted(rng.sample(range(1, len(events)), 6))
        for lo, hi in zip([0, *cuts], [*cuts, len(events)], strict=True):
            batch(view, events[lo:hi])
        view.apply_events(wire(events[:10]))  # the live path's copy, after the consumer's
        batch(view, events)                    # and the whole log again
        assert view.digest() == reference(events).digest()

    def test_pending_never_replaces_final_and_the_first_final_wins(self, view: TraceView) -> None:
        batch(view, [Turns.start(1), Turns.op(1, 0, "failed")])
        batch(view, [Turns.op(1, 0), Turns.op(1, 0, "completed")])
        op = view.operation("op_1_0")
        assert op is not None and op.receipt_status == "failed"
        assert op.begun_at == at(1.15).isoformat()  # created by the first (final) record

    def test_a_final_record_keeps_the_begin_of_the_pending_one(self, view: TraceView) -> None:
        view.apply_events(wire([Turns.start(1), Turns.op(1, 0)]))
        batch(view, [Turns.op(1, 0, "completed", result={"x": [1, "二"]})])
        op = view.operation("op_1_0")
        assert op is not None and op.final and op.begun_at == at(1.1).isoformat()
        assert op.result == {"x": [1, "二"]} and op.completed_at == at(1.15).isoformat()

    def test_the_records_of_issue_16_fold_to_the_view_of_the_records_before(
            self, view: TraceView) -> None:
        """A final record carrying its evidence and ``begun_at`` (no pending record, no
        evidence records) and a batch of spans in one record: the same view, digest included,
        as the records of before."""
        before = Turns.turn(1, ops=2)
        after: list[ev.Event] = []
        spans: list[ev.SpanExported] = []
        for event in before:
            if isinstance(event, ev.OperationRecorded) and event.receipt_status == "pending":
                continue
            if isinstance(event, ev.EvidenceRecorded):
                continue
            if isinstance(event, ev.SpanExported):
                spans.append(event)
                continue
            if isinstance(event, ev.OperationRecorded):
                pending = next(e for e in before if isinstance(e, ev.OperationRecorded)
                               and e.operation_id == event.operation_id)
                items = tuple(ev.OperationEvidence(
                    evidence_id=e.evidence_id, evidence_type=e.evidence_type, attempt=e.attempt,
                    attributes=e.attributes, source_refs=e.source_refs)
                    for e in before if isinstance(e, ev.EvidenceRecorded)
                    and e.operation_id == event.operation_id)
                event = event.model_copy(update={"begun_at": pending.recorded_at, "evidence": items})
            after.append(event)
        after.insert(len(after) - 1, ev.SpansExported(spans=tuple(spans)))
        batch(view, after)
        old_view = reference(before)
        assert view.counts() == old_view.counts()
        for op_id in ("op_1_0", "op_1_1"):
            assert view.operation(op_id) == old_view.operation(op_id)
            assert [(e.evidence_id, e.evidence_type, e.attempt, e.attributes, e.source_refs)
                    for e in view.evidence_of(op_id)] == [
                (e.evidence_id, e.evidence_type, e.attempt, e.attributes, e.source_refs)
                for e in old_view.evidence_of(op_id)]
        records = view.interaction_records("int_1")
        assert records is not None and len(records.spans) == len(spans)
        assert view.digest() == reference(after).digest()

    def test_the_first_finish_wins_across_batches(self, view: TraceView) -> None:
        batch(view, [Turns.start(1)])
        batch(view, [Turns.finish(1, "cancelled")])
        batch(view, [Turns.finish(1, "completed"), Turns.start(1)])
        found = view.interaction("int_1")
        assert found is not None and (found.status, found.outcome) == ("finished", "cancelled")

    def test_a_finish_of_an_unknown_interaction_is_ignored(self, view: TraceView) -> None:
        batch(view, [Turns.finish(5)])
        assert view.interaction("int_5") is None

    def test_a_known_receipt_outcome_is_never_replaced_by_a_recovered_one(self, view: TraceView) -> None:
        batch(view, [Turns.start(1), Turns.op(1), Turns.receipt(1, known=False, outcome="timeout")])
        batch(view, [Turns.receipt(1, outcome="succeeded")])
        batch(view, [Turns.receipt(1, known=False, outcome="timeout")])
        kept = view.receipt("exec_1_0")
        assert kept is not None and kept.outcome_known and kept.outcome == "succeeded"
        (item,) = view.evidence_of("op_1_0")
        assert item.origin == "receipt" and item.attributes["outcome"] == "succeeded"

    def test_positions_commit_with_their_batch(self, view: TraceView) -> None:
        assert view.positions() == {}
        batch(view, [Turns.start(1)], {("trace", 0): 1, ("spans", 2): 7})
        view.apply_events(wire([Turns.start(2)]))  # the live path moves no offset
        batch(view, [Turns.finish(1)], {("trace", 0): 2})
        assert view.positions() == {("trace", 0): 2, ("spans", 2): 7}

    # ------------------------------------------------------------------ reads

    def test_reads_of_a_conversation(self, view: TraceView) -> None:
        batch(view, [Turns.start(1, host_conversation_key="hk", invocation_id="inv-1"),
                     Turns.finish(1), Turns.start(3, conversation=1), Turns.start(2, conversation=1)])
        conversation = view.conversation("conv_1")
        assert conversation is not None and conversation.interaction_ids == {"int_1", "int_2", "int_3"}
        assert [i.interaction_id for i in view.interactions_of("conv_1")] == ["int_1", "int_2", "int_3"]
        active = view.active_interaction("conv_1")
        assert active is not None and active.interaction_id == "int_3"
        assert view.conversation_by_host_key("alice", "hk") == "conv_1"
        assert view.conversation_by_host_key("bob", "hk") is None
        by_invocation = view.interaction_by_invocation("alice", "inv-1")
        assert by_invocation is not None and by_invocation.interaction_id == "int_1"
        assert view.conversation("conv_9") is None and view.interactions_of("conv_9") == []

    def test_reads_of_an_interaction(self, view: TraceView) -> None:
        events = Turns.turn(1, ops=3)
        batch(view, events)
        expected = reference(events)
        assert [o.operation_id for o in view.operations_of("int_1")] == ["op_1_0", "op_1_1", "op_1_2"]
        assert view.operation_count("int_1") == 3 and view.operation_count("int_9") == 0
        by_key = view.operation_by_key("key_1_1")
        assert by_key is not None and by_key.operation_id == "op_1_1"
        assert view.evidence_of("op_1_1") == expected.evidence_of("op_1_1")
        assert [e.evidence_type for e in view.evidence_of("op_1_1")] == ["execution", "retrieval", "retrieval"]
        assert [r.receipt_id for r in view.receipts_of("op_1_2")] == ["exec_1_2"]
        spans = view.spans_of_interaction("int_1")
        assert spans == expected.spans_of_interaction("int_1")
        assert {s.span_id for s in spans} >= {"span_1_0", "span_1_1", "span_1_99"}
        records = view.interaction_records("int_1")
        assert records is not None and records == expected.interaction_records("int_1")
        assert view.interaction_records("int_9") is None
        assert view.operation("op_9") is None and view.receipt("exec_9") is None

    def test_an_interaction_follows_the_traces_of_its_receipts_that_have_one(self, view: TraceView) -> None:
        receipt = Turns.receipt(2, 0)
        events = [*Turns.turn(1, ops=1), *Turns.turn(2, ops=1)[:4],
                  receipt.model_copy(update={"trace_id": ""}),
                  Turns.receipt(2, 0, rid="exec_2_0b").model_copy(update={"trace_id": None}),
                  Turns.span(2, 5, trace=""), Turns.span(2, 6, trace="trace_1")]
        batch(view, events)
        expected = reference(events)
        assert view.spans_of_interaction("int_2") == expected.spans_of_interaction("int_2") == []
        records = view.interaction_records("int_2")
        assert records is not None and records == expected.interaction_records("int_2")
        assert [r.receipt_id for r in records.receipts["op_2_0"]] == ["exec_2_0", "exec_2_0b"]
        spans = view.interaction_records("int_1")
        assert spans is not None and "span_2_6" in {s.span_id for s in spans.spans}

    # ------------------------------------------------------------------ retention

    def test_spans_older_than_the_retention_are_pruned_in_batches(self, view: TraceView) -> None:
        now = 10_000.0
        old = [Turns.span(1, s, end=int((now - 100) * 1e9)) for s in range(7)]
        young = [Turns.span(2, s, end=int((now - 1) * 1e9)) for s in range(3)]
        batch(view, [*old, *young])
        assert view.prune_spans(int((now - 50) * 1e9), 3) == 3
        assert asyncio.run(prune(view, 50, 3, now=lambda: now)) == 4
        assert view.counts()["spans"] == 3

    # ------------------------------------------------------------------ durability

    def test_a_reopened_view_holds_what_was_committed(self, opener: Opener, view: TraceView) -> None:
        if not self.durable:
            pytest.skip("the memory adapter does not outlive its process")
        events = Turns.turn(1)
        batch(view, events, {("trace", 1): 11})
        again = opener()
        try:
            assert again.digest() == reference(events).digest()
            assert again.positions() == {("trace", 1): 11}
        finally:
            again.close()

    def test_a_batch_that_fails_leaves_neither_records_nor_offsets(self, view: TraceView) -> None:
        if not self.durable:
            pytest.skip("the memory adapter has no transactions")
        unwritable = ev.SpanExported.model_construct(**{
            **Turns.span(1, 2).model_dump(), "attributes": {"x": object()}})
        with pytest.raises(TypeError):
            asyncio.run(view.apply_batch([*wire([Turns.start(1)]), unwritable], {("trace", 0): 5}))
        assert view.interaction("int_1") is None and view.positions() == {}

    def test_a_batch_the_database_refuses_midway_leaves_neither_records_nor_offsets(
        self, view: TraceView
    ) -> None:
        if not self.durable:
            pytest.skip("the memory adapter has no transactions")
        # the start's rows are written before the span's, which no BIGINT column can hold
        too_late = Turns.span(1, 2, end=2**63)
        with pytest.raises(Exception) as refused:
            asyncio.run(view.apply_batch(wire([Turns.start(1), too_late]), {("trace", 0): 5}))
        assert not isinstance(refused.value, StoreUnavailable)  # not transient: not retried
        assert view.interaction("int_1") is None and view.conversation("conv_1") is None
        assert view.positions() == {} and view.counts()["spans"] == 0

    # ------------------------------------------------------------------ provenance

    def test_a_sealed_turn_exports_a_bundle_that_verifies(self, view: TraceView) -> None:
        batch(view, signed(Turns.turn(1)))
        sealer, sink = sealer_of(view)
        first = asyncio.run(sealer.seal("int_1"))
        assert first is not None and first.seq == 1
        assert asyncio.run(sealer.seal("int_1")) is None  # nothing new: no second head
        receipt = view.receipt("exec_1_0")
        assert receipt is not None and receipt.record is not None
        assert receipt.record["signature"] and receipt.record["key_id"] == KEYRING.signer("receipt", T0).kid  # type: ignore[union-attr]
        bundle = wire_json(interaction_bundle(view, "int_1", at(200)) or {})
        report = verify_bundle(bundle, KEYRING.public)
        assert report.ok, report.first_broken
        # a late receipt extends the chain with a new signed head; the first head stays
        late = Turns.receipt(1, 1, rid="exec_1_late")
        batch(view, signed([late]))
        second = asyncio.run(sealer.seal("int_1"))
        assert second is not None and second.seq == 2 and len(second.entries) == 2  # receipt + its evidence
        assert [s.seq for s in view.seals_of("int_1")] == [1, 2]
        bundle = wire_json(interaction_bundle(view, "int_1", at(200)) or {})
        assert [h["length"] for h in bundle["chain"]["heads"]] == [first.length, first.length + 2]
        assert verify_bundle(bundle, KEYRING.public).ok
        # the seals are events: a view rebuilt from the log holds the same ones
        rebuilt = reference(signed(Turns.turn(1)) + signed([late]) + list(sink.events))
        assert rebuilt.snapshot()["seals"] == view.snapshot()["seals"]
        assert rebuilt.digest() == view.digest()

    def test_the_first_seal_of_a_number_stands_and_active_turns_are_not_sealed(self, view: TraceView) -> None:
        events = signed(Turns.turn(2))
        batch(view, events[:-1])  # not finished yet
        sealer, _ = sealer_of(view)
        assert asyncio.run(sealer.seal("int_2")) is None
        batch(view, events[-1:])
        sealed = asyncio.run(sealer.seal("int_2"))
        assert sealed is not None
        rival = sealed.model_copy(update={"head": "sha256:" + "0" * 64})
        batch(view, [rival])
        assert view.seals_of("int_2")[0].head == sealed.head
        assert [i for i, _ in view.finished_since(at(0).isoformat(), 10)] == ["int_2"]
        assert view.finished_since(at(3).isoformat(), 10) == []
