"""Ranking rules found on real documentation folders (bench/kb_eval's real corpus)."""

from __future__ import annotations

from pathlib import Path

from knowledge_base.domain.search import SearchIndex

from tests.unit.knowledge_base.test_folders_as_people_have_them import state_of


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
