"""The read API's searches (``search_interactions`` / ``search_conversations``) on every adapter
of the TraceView port: the same filters, the same newest-first order, the same pages.

A test module subclasses :class:`TraceSearchContract` and provides the ``view`` fixture."""

from __future__ import annotations

from typing import Any

from bkn_common.contracts import events as ev
from tests.support.trace_view_contract import Turns, at, batch
from trace_recorder.service_layer.search import (
    TraceQuery,
    decode_cursor,
    interaction_position,
    page,
    utc_instant,
)
from trace_recorder.service_layer.view_ports import TraceView


def _turn(n: int, *, account: str = "alice", agent: str = "agent", tool: str = "lookup",
          kn_id: str = "kn", outcome: str = "completed", receipt: str = "succeeded",
          conversation: int | None = None) -> list[ev.Event]:
    conv = f"conv_{n if conversation is None else conversation}"
    start = Turns.start(n, conversation, account=account, agent_name=agent)
    op = Turns.op(n, 0, tool_name=tool, conversation_id=conv)
    done = Turns.op(n, 0, "completed", tool_name=tool, conversation_id=conv, result={})
    rec = Turns.receipt(n, 0, outcome=receipt).model_copy(update={"kn_id": kn_id, "conversation_id": conv})
    return [start, op, done, rec, Turns.finish(n, outcome, conversation)]


def _ids(items: list[Any]) -> list[str]:
    return [getattr(i, "interaction_id", None) or i.conversation_id for i in items]


class TraceSearchContract:
    def _fill(self, view: TraceView) -> None:
        events: list[ev.Event] = []
        events += _turn(1)
        events += _turn(2, account="bob", tool="execute_tool", kn_id="supply")
        events += _turn(3, agent="other", outcome="failed")
        events += _turn(4, conversation=1)  # a second turn of conversation 1
        events += _turn(5, account="bob", kn_id="supply")
        batch(view, events)

    def test_interactions_newest_first_with_every_filter(self, view: TraceView) -> None:
        self._fill(view)
        search = view.search_interactions
        assert _ids(search(TraceQuery())) == ["int_5", "int_4", "int_3", "int_2", "int_1"]
        assert _ids(search(TraceQuery(account="bob"))) == ["int_5", "int_2"]
        assert _ids(search(TraceQuery(agent="other"))) == ["int_3"]
        assert _ids(search(TraceQuery(kn_id="supply"))) == ["int_5", "int_2"]
        assert _ids(search(TraceQuery(tool="execute_tool"))) == ["int_2"]
        assert _ids(search(TraceQuery(tool="tool"))) == ["int_5", "int_4", "int_3", "int_2", "int_1"]
        assert _ids(search(TraceQuery(outcome="failed"))) == ["int_3"]
        assert _ids(search(TraceQuery(evidence_status="complete", account="alice"))) == ["int_4", "int_3", "int_1"]
        assert _ids(search(TraceQuery(evidence_status="missing"))) == []
        since, until = utc_instant(at(2).isoformat()), utc_instant(at(4).isoformat())
        assert _ids(search(TraceQuery(since=since, until=until))) == ["int_3", "int_2"]

    def test_pages_follow_the_cursor_without_gaps_or_repeats(self, view: TraceView) -> None:
        self._fill(view)
        seen: list[str] = []
        query = TraceQuery(limit=2)
        for _ in range(5):
            items, cursor = page(view.search_interactions(query), query, interaction_position)
            seen += _ids(items)
            if cursor is None:
                break
            query = TraceQuery(limit=2, after=decode_cursor(cursor))
        assert seen == ["int_5", "int_4", "int_3", "int_2", "int_1"]

    def test_conversations_by_their_turns(self, view: TraceView) -> None:
        self._fill(view)
        search = view.search_conversations
        assert _ids(search(TraceQuery())) == ["conv_5", "conv_3", "conv_2", "conv_1"]
        assert _ids(search(TraceQuery(account="bob"))) == ["conv_5", "conv_2"]
        assert _ids(search(TraceQuery(outcome="failed"))) == ["conv_3"]
        assert _ids(search(TraceQuery(tool="execute_tool"))) == ["conv_2"]
        # limit + 1 items: the caller learns there is a next page
        assert _ids(search(TraceQuery(limit=1, after=(at(3).isoformat(), "conv_3")))) == ["conv_2", "conv_1"]
