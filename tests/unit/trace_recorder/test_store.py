"""The store as a projection: idempotent, order-independent across topics, digest-stable."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from bkn_common.contracts import events as ev
from bkn_common.contracts.events import decode_event, encode_event
from trace_recorder.domain.rules import evidence_id
from trace_recorder.service_layer.store import TraceStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def started(iid: str = "int_1", cid: str = "conv_1", **kw: object) -> ev.InteractionStarted:
    data = {"conversation_id": cid, "interaction_id": iid, "new_conversation": True,
            "account": "alice", "agent_name": "agent", "question": "q?", "started_at": T0, **kw}
    return ev.InteractionStarted.model_validate(data)


def operation(status: str = "pending", op: str = "op_1", **kw: object) -> ev.OperationRecorded:
    data = {"operation_id": op, "operation_key": "k-" + op, "conversation_id": "conv_1",
            "interaction_id": "int_1", "tool_name": "t", "input_hash": "h",
            "receipt_id": "rcpt_" + op, "receipt_status": status,
            "evidence_durability": "pending" if status == "pending" else "durable",
            "recorded_at": T0, **kw}
    return ev.OperationRecorded.model_validate(data)


def receipt(
    rid: str = "r1", op: str | None = "op_1", trace_id: str = "t1"
) -> ev.ExecutionReceiptRecorded:
    return ev.ExecutionReceiptRecorded(
        receipt_id=rid, operation_id=op, interaction_id="int_1", kn_id="kn", owner_id="box",
        tool_id="tool", capability_type="function", caller="alice", proxy_id="px",
        arguments_hash="ah", outcome="succeeded", latency_ms=1.5, executed_at=T0,
        trace_id=trace_id,
    )


def span(sid: str, start: int, trace_id: str = "t1", **attrs: object) -> ev.SpanExported:
    return ev.SpanExported(
        trace_id=trace_id, span_id=sid, name="s" + sid, service_name="svc", kind="internal",
        start_time_unix_nano=start, end_time_unix_nano=start + 1000, status="ok",
        attributes=dict(attrs),
    )


def evidence(attempt: int = 1) -> ev.EvidenceRecorded:
    return ev.EvidenceRecorded(
        evidence_id=evidence_id("int_1", "op_1", "retrieval", attempt), operation_id="op_1",
        interaction_id="int_1", evidence_type="retrieval", attempt=attempt,
        attributes={"query_hash": "qh", "candidates": 3, "truncated": False},
        source_refs=("object_instance:kn:ot:1",), recorded_at=T0,
    )


def finished(outcome: str = "completed", **kw: object) -> ev.InteractionFinished:
    data = {"conversation_id": "conv_1", "interaction_id": "int_1", "outcome": outcome,
            "answer": "42" if outcome == "completed" else None,
            "reason": None if outcome == "completed" else "why",
            "execution_status": "succeeded", "evidence_status": "complete",
            "finished_at": T0, **kw}
    return ev.InteractionFinished.model_validate(data)


def feed(store: TraceStore, events: list[ev.Event]) -> TraceStore:
    for event in events:
        store.apply(decode_event(encode_event(event)))
    return store


def a_turn() -> list[ev.Event]:
    return [started(), operation("pending"), evidence(1), evidence(2), operation("completed"),
            receipt(), span("a", 20), span("b", 10), span("c", 5, trace_id="t2",
            **{"bkn.operation_id": "op_1"}), finished()]


def test_applying_everything_twice_changes_nothing() -> None:
    once = feed(TraceStore(), a_turn())
    twice = feed(feed(TraceStore(), a_turn()), a_turn())
    assert once.digest() == twice.digest()
    assert once.counts() == {"conversations": 1, "interactions": 1, "operations": 1,
                             "evidence": 3, "receipts": 1, "spans": 3}


def test_a_span_batch_record_folds_like_its_spans_one_by_one() -> None:
    spans = [span("a", 20), span("b", 10), span("c", 5, trace_id="t2", **{"bkn.operation_id": "op_1"})]
    rest = [started(), operation("pending"), operation("completed"), receipt(), finished()]
    one_by_one = feed(TraceStore(), rest + spans)
    batched = feed(TraceStore(), [*rest, ev.SpansExported(spans=tuple(spans))])
    assert batched.digest() == one_by_one.digest()
    assert batched.counts()["spans"] == 3
    # a batch and the old single-span records of the same spans overlap harmlessly
    both = feed(TraceStore(), [*rest, spans[0], ev.SpansExported(spans=tuple(spans)), spans[2]])
    assert both.digest() == one_by_one.digest()


def test_topics_may_interleave_in_any_order() -> None:
    trace = [started(), operation("pending"), operation("completed"), finished()]
    others = [evidence(1), receipt(), span("a", 20), span("b", 10)]
    reference = feed(TraceStore(), trace + others).digest()
    rng = random.Random(7)
    for _ in range(20):
        merged, pending = [], list(others)
        for event in trace:  # keep the TRACE partition's order, scatter the rest
            while pending and rng.random() < 0.5:
                merged.append(pending.pop(rng.randrange(len(pending))))
            merged.append(event)
        assert feed(TraceStore(), merged + pending).digest() == reference


def test_pending_never_overwrites_a_final_operation() -> None:
    store = feed(TraceStore(), [started(), operation("completed", result={"rows": 1}),
                                operation("pending")])
    op = store.operations["op_1"]
    assert (op.receipt_status, op.evidence_durability, op.result) == ("completed", "durable",
                                                                      {"rows": 1})


def test_the_first_final_record_and_the_first_finish_win() -> None:
    store = feed(TraceStore(), [started(), operation("failed"), operation("completed"),
                                finished("abandoned"), finished("completed")])
    assert store.operations["op_1"].receipt_status == "failed"
    assert store.interactions["int_1"].status == "abandoned"


def test_receipts_become_execution_evidence_with_a_deterministic_id() -> None:
    store = feed(TraceStore(), [started(), operation(), receipt(), receipt()])
    items = store.evidence_of("op_1")
    assert [e.evidence_type for e in items] == ["execution"]
    assert items[0].evidence_id == evidence_id("int_1", "op_1", "execution", "r1")
    assert items[0].source_refs == ["execution_receipt:r1"]
    assert feed(TraceStore(), [receipt()]).digest() == feed(TraceStore(), [receipt()]).digest()


def test_a_receipt_without_an_operation_is_kept_but_is_no_evidence() -> None:
    store = feed(TraceStore(), [receipt(op=None)])
    assert store.counts()["receipts"] == 1 and store.counts()["evidence"] == 0


def test_spans_link_by_operation_attribute_and_by_receipt_trace_sorted_by_start() -> None:
    store = feed(TraceStore(), [
        started(), operation(), receipt(trace_id="t1"), span("late", 30), span("early", 10),
        span("tagged", 20, trace_id="t9", **{"bkn.operation_id": "op_1"}),
        span("direct", 5, trace_id="t8", **{"bkn.interaction_id": "int_1"}),
        span("other", 1, trace_id="t7"),
    ])
    assert [s.span_id for s in store.spans_of_interaction("int_1")] == [
        "direct", "early", "tagged", "late"]


def test_host_keys_and_invocations_are_indexed_per_account() -> None:
    store = feed(TraceStore(), [started(host_conversation_key="h", invocation_id="inv")])
    assert store.conversation_by_host_key("alice", "h") == "conv_1"
    assert store.conversation_by_host_key("bob", "h") is None
    found = store.interaction_by_invocation("alice", "inv")
    assert found is not None and found.interaction_id == "int_1"


def test_digest_changes_with_content() -> None:
    changed = feed(TraceStore(), [started(question="x")])
    assert feed(TraceStore(), [started()]).digest() != changed.digest()
    assert feed(TraceStore(), [started()]).digest() == feed(TraceStore(), [started()]).digest()
    assert TraceStore().digest() != feed(TraceStore(), [started()]).digest()


def test_a_known_outcome_supersedes_a_recovered_receipt_in_either_order() -> None:
    recovered = receipt().model_copy(update={"outcome": "upstream_error", "outcome_known": False})
    for events in ([started(), operation(), recovered, receipt()], [started(), operation(), receipt(), recovered]):
        store = feed(TraceStore(), events)
        kept = store.receipts["r1"]
        assert (kept.outcome, kept.outcome_known) == ("succeeded", True)
        (item,) = store.evidence_of("op_1")
        assert (item.attributes["outcome"], item.attributes["outcome_known"]) == ("succeeded", True)


def test_a_recovered_receipt_alone_says_its_outcome_is_unknown() -> None:
    recovered = receipt().model_copy(update={"outcome": "upstream_error", "outcome_known": False})
    kept = feed(TraceStore(), [recovered, recovered]).receipts["r1"]
    assert (kept.outcome, kept.outcome_known) == ("upstream_error", False)
