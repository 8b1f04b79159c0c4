"""The console's timeline: bars on the turn's axis, in begin order, clamped and labelled."""

from __future__ import annotations

from gateway.domain.timeline import MIN_WIDTH, timeline


def _op(n: int, begun: float, done: float | None, status: str = "completed") -> dict[str, object]:
    return {"operation_id": f"op_{n}", "tool_name": "execute_tool", "receipt_status": status,
            "begun_at": f"2026-03-01T00:00:{begun:09.6f}+00:00",
            "completed_at": None if done is None else f"2026-03-01T00:00:{done:09.6f}+00:00",
            "execution_receipts": [{"tool_id": "tool_fx"}] if status == "completed" else []}


def test_bars_span_begin_to_complete_on_the_turns_axis() -> None:
    interaction = {"started_at": "2026-03-01T00:00:00+00:00", "finished_at": "2026-03-01T00:00:10+00:00",
                   "operations": [_op(1, 1.0, 6.0), _op(2, 7.0, 7.0, "failed"), _op(3, 8.0, None, "pending")]}
    tl = timeline(interaction)
    assert tl.total_ms == 10_000
    one, two, three = tl.bars
    assert (one.left, one.width, one.outcome, one.duration_ms) == (10.0, 50.0, "completed", 5000.0)
    assert one.label == "execute_tool · tool_fx" and one.label_at == "inside"
    assert (two.left, two.width, two.outcome) == (70.0, MIN_WIDTH, "failed")  # instant: still visible
    assert two.label_at == "before" and two.label == "execute_tool"
    assert (three.left, three.width, three.duration_ms) == (80.0, 20.0, None)  # pending: to the end
    assert [b.row for b in tl.bars] == [0, 1, 2]
    assert tl.ticks[0] == (0.0, 0.0) and tl.ticks[-1] == (100.0, 10_000)


def test_no_times_no_bars() -> None:
    assert timeline({"operations": []}).bars == []
