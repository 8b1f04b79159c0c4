"""What real documentation folders taught the ranking and the projection (bench/kb_eval's real
corpus, bench/knowledge_base_folders' 20,000-file folder)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from knowledge_base.domain.search import SearchIndex
from knowledge_base.domain.text import tokens

from bkn_common.contracts.events import EventRecord, decode_event, encode_event
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


class _UnitVectors:
    """Every chunk embedded (the lane's hits are given to the search directly)."""

    def get(self, key: str) -> np.ndarray:
        return np.full(4, 0.5, dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("the vector hits are given")

    def share(self, keys: Sequence[str], matrix: np.ndarray) -> None:
        pass


def test_a_question_in_another_language_leans_on_the_vectors(tmp_path: Path) -> None:
    pages = {f"p{i}.md": f"# Page {i}\n\n" + "Markdown " * (6 - i) + f"topic {i}.\n" for i in range(5)}
    pages["math.md"] = "# Arithmatex\n\nRender LaTeX formulas in Markdown.\n"
    index = _index(tmp_path, pages)
    vectors = _UnitVectors()
    index.refresh_vectors(vectors)
    ids = {path: index.by_path[path].file_id for path in pages}
    question = "如何在 Markdown 中渲染数学公式？"  # only "markdown" is a word of the base
    assert index.bm25.coverage(tokens(question)) < 0.2
    assert index.lexical(question)[0][0] == ids["p0.md"] and index.lexical(question)[-1][0] == ids["math.md"]
    found = [(ids["math.md"], 0.45, -1)] + [(ids[f"p{i}.md"], 0.40 - i / 100, -1) for i in range(5)]
    hits = index.search(question, "hybrid", vectors=vectors, vector_hits=found).hits
    assert hits[0].file.path == "math.md"
    # a question in the pages' language keeps the BM25 lane's full weight
    english = index.search("markdown topic", "hybrid", vectors=vectors, vector_hits=found).hits
    assert english[0].file.path == "p0.md"
    assert index.bm25.coverage(tokens("markdown topic")) == 1.0


def test_with_vectors_the_bm25_lane_keeps_only_its_strong_hits(tmp_path: Path) -> None:
    pages = {f"filler{i}.md": f"# Filler {i}\n\nNothing about the question here, item {i}.\n" for i in range(20)}
    pages["keys.md"] = "# Rotate signing keys\n\nRotate the signing keys every year.\n"
    pages.update({f"weak{i}.md": f"# Note {i}\n\nThe signing keys live in the store {i}.\n" for i in range(3)})
    pages["vault.md"] = "# Secret renewal\n\nRenew credentials on a schedule.\n"
    index = _index(tmp_path, pages)
    vectors = _UnitVectors()
    index.refresh_vectors(vectors)
    ids = {path: index.by_path[path].file_id for path in pages}
    question = "rotate signing keys"
    lexical = index.lexical(question)
    best = lexical[0][1]
    assert lexical[0][0] == ids["keys.md"]
    weak = {fid for fid, score, _ in lexical[1:]}
    assert weak == {ids[f"weak{i}.md"] for i in range(3)}
    assert all(0.25 * best <= score < 0.6 * best for _, score, _ in lexical[1:])  # the weak tail
    found = [(ids["keys.md"], 0.6, -1), (ids["vault.md"], 0.5, -1)] + \
        [(ids[f"weak{i}.md"], 0.39 - i / 100, -1) for i in range(3)]
    outcome = index.search(question, "hybrid", vectors=vectors, vector_hits=found)
    assert outcome.lanes["bm25"] == 1
    assert [h.file.path for h in outcome.hits[:2]] == ["keys.md", "vault.md"]
    # without vectors (mode file) the lane keeps its whole tail
    lexical_only = index.search(question, "file", vectors=None)
    assert lexical_only.lanes["bm25"] == 4
    assert "vault.md" not in [h.file.path for h in lexical_only.hits]


def test_a_compound_word_is_indexed_by_its_parts(tmp_path: Path) -> None:
    assert tokens("Edit serverless.yml, prune node_modules") == ["edit", "serverless", "yml", "prune", "node", "module"]
    assert tokens("pip's no-floating-promises rule") == ["pip", "floating", "promise", "rule"]
    index = _index(tmp_path, {
        "config.md": "# Config\n\nEvery setting lives in serverless.yml next to node_modules.\n",
        "other.md": "# Other\n\nNothing to configure here.\n",
    })
    assert [fid for fid, _, _ in index.lexical("where do serverless modules go")] == \
        [index.by_path["config.md"].file_id]


def test_coverage_counts_the_words_of_a_mixed_question_not_its_bigrams(tmp_path: Path) -> None:
    pages = {f"p{i}.md": f"# Page {i}\n\nTravel rules, part {i}.\n" for i in range(4)}
    pages["mfa.md"] = "# MFA\n\nMFA is required on email and VPN.\n"
    pages["zh.md"] = "# 说明\n\n" + "办公室的日常安排和流程。" * 8 + "关于系统。\n"
    index = _index(tmp_path, pages)
    vectors = _UnitVectors()
    index.refresh_vectors(vectors)
    ids = {path: index.by_path[path].file_id for path in pages}
    question = "MFA 对哪些系统是强制的？"  # "mfa" and "系统" are words of the base, "强制" is not
    assert index.bm25.coverage(tokens(question)) < 0.35  # bigrams such as "~对哪" count against it
    assert index.lexical(question)[0][0] == ids["mfa.md"]
    found = [(ids[f"p{i}.md"], 0.5 - i / 100, -1) for i in range(4)] + [(ids["mfa.md"], 0.45, -1)]
    hits = index.search(question, "hybrid", vectors=vectors, vector_hits=found).hits
    assert hits[0].file.path == "mfa.md"
