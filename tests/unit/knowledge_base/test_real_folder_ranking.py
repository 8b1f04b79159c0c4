"""Ranking rules found on real documentation folders (bench/kb_eval's real corpus)."""

from __future__ import annotations

from pathlib import Path

from knowledge_base.domain.search import SearchIndex

from bkn_common.events import EventRecord, decode_event, encode_event
from clctl.kb import LatestApplies, apply_events, load_folder
from tests.unit.knowledge_base.conftest import fold
from tests.unit.knowledge_base.test_folders_as_people_have_them import state_of


def _records(events: list) -> list[EventRecord]:  # type: ignore[type-arg]
    return [decode_event(encode_event(e)) for e in events]


def _index(tmp_path: Path, files: dict[str, str]) -> SearchIndex:
    view = state_of(tmp_path, files).view("kb")
    assert view is not None
    return SearchIndex(view, 700)


def test_a_title_is_named_only_as_whole_words(tmp_path: Path) -> None:
    index = _index(tmp_path, {
        "mark.md": "# Mark\n\nHighlight text with double equals.\n",
        "admonition.md": "# Admonition\n\nNote and warning boxes.\n",
        "tables.md": "# Tables\n\nPipe tables in documents.\n",
    })
    mark = index.by_path["mark.md"].file_id
    assert index.mention("add warning boxes to markdown documents") == []  # "mark" inside "markdown"
    tables = index.by_path["tables.md"].file_id
    assert index.mention("how do I use mark with tables?") == [tables, mark]  # longest title first
    assert index.mention("remarkable tables") == [tables]
    assert index.mention("mark的用法") == [mark]  # Chinese around a Latin title is a word boundary


def test_an_unchanged_folder_applied_again_keeps_the_view_and_its_index(tmp_path: Path) -> None:
    files = {"a.md": "# A\n\nAlpha.\n", "b.md": "# B\n\nBeta, see [a](a.md).\n"}
    state = state_of(tmp_path, files)
    base = state.bases["kb"]
    version, view = base.version, state.view("kb")
    previous = LatestApplies()
    for record in _records(apply_events("kb", "Field", ["dev"], load_folder(tmp_path, 10_000), None)):
        previous.apply(record)
    again = apply_events("kb", "Field", ["dev"], load_folder(tmp_path, 10_000), previous.applies["kb"])
    assert [type(e).__name__ for e in again] == ["KnowledgeBaseApplied"]  # no file events
    fold(state, again)
    assert base.version == version and state.view("kb") is view
    fold(state, apply_events("kb", "Field", ["dev", "ops"], load_folder(tmp_path, 10_000),
                             previous.applies["kb"]))  # new readers: a new view
    assert base.version == version + 1 and state.view("kb") is not view
    (tmp_path / "a.md").write_text("# A\n\nAlpha, changed.\n")
    fold(state, apply_events("kb", "Field", ["dev", "ops"], load_folder(tmp_path, 10_000),
                             previous.applies["kb"]))
    assert base.version > version + 1 and "changed" in (state.view("kb") or view).files["a.md"].body
