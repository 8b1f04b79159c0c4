"""What `clctl replay` shows: a progress bar (events/s, ETA) and a summary table of sections."""

from __future__ import annotations

from typing import Any

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text


class EventsPerSecond(ProgressColumn):
    """The fold rate, events per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("- events/s" if speed is None else f"{speed:,.0f} events/s")


def replay_columns() -> tuple[ProgressColumn, ...]:
    return (
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), EventsPerSecond(),
        TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
    )


def summary_table(service: str, rebuilt: dict[str, Any], live: dict[str, Any] | None) -> Table:
    """One row per section: count and digest of the rebuilt store, and (verify) of the live one."""
    table = Table(title=f"{service}: rebuilt from the log" + (" vs live" if live else ""))
    table.add_column("section")
    table.add_column("rebuilt", justify="right")
    table.add_column("sha256")
    if live is not None:
        table.add_column("live", justify="right")
        table.add_column("match")
    live_sections = (live or {}).get("sections", {})
    for name in sorted(set(rebuilt["sections"]) | set(live_sections)):
        mine = rebuilt["sections"].get(name)
        row = [name, str(mine["count"]) if mine else "-", mine["sha256"][:16] if mine else "-"]
        if live is not None:
            theirs = live_sections.get(name)
            row += [str(theirs["count"]) if theirs else "-", "yes" if mine == theirs else "NO"]
        table.add_row(*row)
    return table
