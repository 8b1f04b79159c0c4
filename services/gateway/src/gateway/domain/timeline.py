"""The console's timeline of one interaction: a bar per operation from its begin to its
completion, placed on the turn's time axis (percentages, so the page scales)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

MIN_WIDTH = 0.6  # percent: an instant operation stays visible and clickable


@dataclass(frozen=True)
class Bar:
    operation_id: str
    tool_name: str
    outcome: str  # completed | failed | pending: the bar's colour
    left: float  # percent of the axis
    width: float
    duration_ms: float | None
    row: int
    label: str  # the tool, and the executed tool's id when a receipt names it
    label_x: float  # percent
    label_at: str  # inside (white on the bar) | after | before (dark beside it)


@dataclass(frozen=True)
class Timeline:
    bars: list[Bar]
    total_ms: float
    ticks: list[tuple[float, float]]  # (percent, milliseconds since the start)


def _at(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def timeline(interaction: dict[str, Any], ticks: int = 5) -> Timeline:
    operations = interaction.get("operations", [])
    begins = [_at(op["begun_at"]) for op in operations]
    ends = [_at(op.get("completed_at")) for op in operations]
    known = [t for t in (_at(interaction.get("started_at")), *begins, *ends,
                         _at(interaction.get("finished_at"))) if t is not None]
    if not known:
        return Timeline([], 0.0, [])
    start, end = min(known), max(known)
    total_ms = max((end - start).total_seconds() * 1000, 1.0)
    bars = []
    for row, (op, begun, done) in enumerate(zip(operations, begins, ends, strict=True)):
        assert begun is not None
        left = (begun - start).total_seconds() * 1000 / total_ms * 100
        duration = (done - begun).total_seconds() * 1000 if done is not None else None
        width = max(MIN_WIDTH, (duration if duration is not None else total_ms - left * total_ms / 100)
                    / total_ms * 100)
        left, width = round(min(left, 100 - MIN_WIDTH), 3), round(min(width, 100 - left), 3)
        receipts = op.get("execution_receipts") or []
        label = op["tool_name"] + (f" · {receipts[0].get('tool_id')}" if receipts else "")
        placed = ("inside", left) if width >= 25 else (
            ("after", left + width) if left + width <= 60 else ("before", left))
        bars.append(Bar(op["operation_id"], op["tool_name"], op["receipt_status"], left, width,
                        duration, row, label, placed[1], placed[0]))
    return Timeline(bars, total_ms, [(i * 100 / ticks, total_ms * i / ticks) for i in range(ticks + 1)])
