"""Search over the demo base (lexical lanes; the vector lane is exercised with the real
encoder in the eval and integration tests). The port contracts: test_ports_contract.py."""

from __future__ import annotations

import asyncio

from knowledge_base.adapters.memory_cursor_store import MemoryCursorStore
from knowledge_base.domain.fusion import fuse
from knowledge_base.domain.search import SearchIndex
from knowledge_base.domain.text import tokens
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader
from knowledge_base.service_layer.searching import Searcher, SearchRequest


def test_chinese_is_indexed_as_words_and_bigrams() -> None:
    found = tokens("员工年假申请")
    assert "员工" in found and "申请" in found and "~年假" in found  # words and bigrams
    assert tokens("What is the Travel Policies?") == ["travel", "policy"]


def test_weighted_rrf_puts_a_heavy_lane_first() -> None:
    fused = fuse({"bm25": ["a", "b"], "title": ["b"]}, {"bm25": 1.0, "title": 10.0})
    assert [d for d, _ in fused] == ["b", "a"]


def _search(state: KnowledgeState, query: str, mode: str = "file") -> list[str]:
    view = state.view("handbook")
    assert view is not None
    index = SearchIndex(view, 700)
    return [h.file.path for h in index.search(query, mode, vectors=None).hits]  # type: ignore[arg-type]


def test_lexical_lanes_over_the_demo(demo_state: KnowledgeState) -> None:
    assert _search(demo_state, "Contract Renewal Notices")[0] == "pages/legal/contract-renewals.md"
    assert _search(demo_state, "PTO policy")[0] == "pages/hr/annual-leave.md"  # an alias
    assert _search(demo_state, "pages/it/vpn.md")[0] == "pages/it/vpn.md"
    assert _search(demo_state, "年假可以结转几天")[0] == "pages/zh/nianjia.md"
    assert _search(demo_state, "sabbatical")[0] == "pages/handbook/employee-handbook.md"  # deep in a long page
    assert _search(demo_state, "qxzvv blorftang") == []
    every = _search(demo_state, "index catalog relations", mode="hybrid")
    assert all(p.startswith("pages/") for p in every)


def test_search_answer_statuses(demo_state: KnowledgeState, reader: Reader) -> None:
    searcher = Searcher(demo_state, Indexes(demo_state, None, 700), MemoryCursorStore(), 5, 240, 60,
                        "EMBEDDINGS_DISABLED")
    body = asyncio.run(searcher.search(reader, SearchRequest("handbook", "hotel cap per night"), "en-US"))
    assert body["searchStatus"] == "ok"
    assert body["semanticStatus"] == {"state": "unavailable", "safeCode": "EMBEDDINGS_DISABLED"}
    assert body["items"][0]["path"] == "pages/finance/travel-policy-2025.md"
    assert "180 EUR" in body["items"][0]["sourceExcerpt"]
    empty = asyncio.run(searcher.search(reader, SearchRequest("handbook", "qxzvv blorftang"), "zh-CN"))
    assert empty["searchStatus"] == "no_candidates" and "没有" in empty["message"]
