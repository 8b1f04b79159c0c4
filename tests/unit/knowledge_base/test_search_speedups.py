"""What the faster search must keep: the BM25 top-k and matched fields of the plain
computation, the title-mention lane of a scan over every title, cursor pages equal to the
slices of one ranking, and the deadline."""

from __future__ import annotations

import asyncio
import random
import re

import numpy as np
import pytest
from knowledge_base.adapters.memory_cursor_store import MemoryCursorStore
from knowledge_base.domain.fusion import fuse, fuse_new
from knowledge_base.domain.lexical import Bm25Index, _top
from knowledge_base.domain.search import SearchIndex
from knowledge_base.domain.text import normalized
from knowledge_base.service_layer.indexes import Indexes
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader
from knowledge_base.service_layer.searching import Searcher, SearchRequest

from bkn_common.contracts.openapi_errors import OpenApiCode, OpenApiError


@pytest.mark.parametrize("seed", range(20))
def test_top_k_is_the_head_of_a_stable_sort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, size=int(rng.integers(1, 400))).astype(np.float64)  # many ties
    limit = int(rng.integers(1, 60))
    hits = np.flatnonzero(scores > 0)
    expected = hits[np.argsort(-scores[hits], kind="stable")][:limit]
    assert _top(scores, limit).tolist() == expected.tolist()


def test_matched_fields_are_the_fields_holding_a_query_token() -> None:
    index = Bm25Index()
    index.add("a", {"title": ["leave"], "content": ["hotel", "leave"], "tags": []})
    index.add("b", {"title": ["hotel"], "description": ["budget"]})
    index.add("c", {"content": ["budget"]})
    found = {doc: fields for doc, _, fields in index.search(["leave", "budget"], 10)}
    assert found == {"a": ["title", "content"], "b": ["description"], "c": ["content"]}
    assert index.idf("leave") > 0 and index.idf("absent") == 0.0
    with pytest.raises(RuntimeError):
        index.add("d", {"title": ["late"]})  # frozen by the search


def _named(title: str, text: str) -> bool:
    """``title`` occurs in ``text`` without splitting a word of Latin letters or digits."""
    edge = r"[0-9a-z]"
    before = "" if re.match(edge, title[0]) is None else f"(?<!{edge})"
    after = "" if re.match(edge, title[-1]) is None else f"(?!{edge})"
    return re.search(before + re.escape(title) + after, text) is not None


def _scan_mentions(index: SearchIndex, query: str) -> list[str]:
    """The lane as a scan of every mentionable title, longest first."""
    text = normalized(query)
    found: list[str] = []
    for title, ids in index.mentions:
        if _named(title, text) and title != text:
            found.extend(i for i in ids if i not in found)
    return found[:20]


def test_title_mentions_match_a_scan_of_every_title(demo_state: KnowledgeState) -> None:
    view = demo_state.view("handbook")
    assert view is not None
    index = SearchIndex(view, 700)
    titles = [title for title, _ in index.mentions]
    rng = random.Random(3)
    queries = [f"how does {t} work with {rng.choice(titles)}?" for t in titles]
    queries += [f"{rng.choice(titles)[2:]} and {rng.choice(titles)[:-2]}" for _ in range(40)]
    queries += titles[:5]  # a title alone is the exact lane's, not a mention
    assert any(_scan_mentions(index, q) for q in queries)
    for query in queries:
        assert index.mention(query) == _scan_mentions(index, query), query


def test_cursor_pages_are_slices_of_one_ranking(demo_state: KnowledgeState, reader: Reader) -> None:
    store = MemoryCursorStore()
    searcher = Searcher(demo_state, Indexes(demo_state, None, 700), store, 5, 240, 60, "EMBEDDINGS_DISABLED")
    query = "travel hotel leave policy"
    whole = asyncio.run(searcher.search(reader, SearchRequest("handbook", query, limit=12), "en-US"))
    first = asyncio.run(searcher.search(reader, SearchRequest("handbook", query, limit=4), "en-US"))
    second = asyncio.run(searcher.search(
        reader, SearchRequest("handbook", query, limit=4, cursor=first["nextCursor"]), "en-US"))
    third = asyncio.run(searcher.search(
        reader, SearchRequest("handbook", query, limit=4, cursor=second["nextCursor"]), "en-US"))
    assert first["items"] + second["items"] + third["items"] == whole["items"]
    assert {k: v for k, v in second.items() if k not in ("items", "nextCursor")} == \
        {k: v for k, v in first.items() if k not in ("items", "nextCursor")}
    kept = asyncio.run(store.get(first["nextCursor"]))
    assert kept is not None and "items" not in kept and len(kept["pool"]) > 4
    assert all(len(hit) == 6 and isinstance(hit[0], str) for hit in kept["pool"])  # bare hits only


def test_a_zero_deadline_is_search_timeout(demo_state: KnowledgeState, reader: Reader) -> None:
    searcher = Searcher(demo_state, Indexes(demo_state, None, 700), MemoryCursorStore(), 0, 240, 60,
                        "EMBEDDINGS_DISABLED")
    with pytest.raises(OpenApiError) as refused:
        asyncio.run(searcher.search(reader, SearchRequest("handbook", "annual leave"), "en-US"))
    assert refused.value.code == OpenApiCode.SEARCH_TIMEOUT


def test_the_heap_is_settled_after_each_build(demo_state: KnowledgeState) -> None:
    builds: list[int] = []
    indexes = Indexes(demo_state, None, 700, settle=lambda: builds.append(1))
    assert asyncio.run(indexes.index("handbook")) is not None
    asyncio.run(indexes.index("handbook"))  # the same version: no second build
    assert builds == [1]


@pytest.mark.parametrize("seed", range(10))
def test_a_lane_of_new_documents_fuses_as_fusing_every_lane_again(seed: int) -> None:
    rng = random.Random(seed)
    docs = [f"d{i:03d}" for i in range(300)]
    lanes = {lane: rng.sample(docs[:200], rng.randrange(0, 120)) for lane in ("bm25", "vector", "title")}
    weights = {"bm25": 1.0, "vector": 1.6, "title": 10.0, "graph": 0.35}
    direct = fuse(lanes, weights)
    found = {doc for doc, _ in direct}
    graph = [doc for doc in rng.sample(docs, 60) if doc not in found]
    assert fuse_new(direct, graph, weights["graph"]) == fuse({**lanes, "graph": graph}, weights)
