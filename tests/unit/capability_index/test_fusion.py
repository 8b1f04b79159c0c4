"""Unit tests for embedding fusion: RRF, score fusion, the vector store and the fused search.

A fake :class:`Embedder` (a bag of bilingual "concepts") stands in for the packaged model,
so no model is needed here.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

import pytest

from capability_index.adapters.embedders import embedder_from_setting
from capability_index.domain.documents import CapabilityDoc
from capability_index.domain.embeddings import (
    Embedder,
    EmbeddingsUnavailable,
    VectorStore,
    embedding_text,
)
from capability_index.domain.fusion import (
    SCORE,
    TUNED_FUSION,
    FusionConfig,
    reciprocal_rank_fusion,
    score_fusion,
)
from capability_index.domain.ranking import LexicalIndex
from tests.unit.capability_index.fakes import CONCEPTS, FakeEmbedder


# ---------------------------------------------------------------- pure-Python reference
def normalize(vector: Iterable[float]) -> tuple[float, ...]:
    """L2-normalised copy (a zero vector stays zero)."""
    vec = tuple(float(x) for x in vector)
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0 or not math.isfinite(norm):
        return tuple(0.0 for _ in vec)
    return tuple(x / norm for x in vec)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of two *normalised* vectors (their dot product)."""
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


class ReferenceStore:
    """How :class:`VectorStore` must rank: every document embedded afresh, brute force."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.texts: dict[str, str] = {}

    def upsert(self, capability_id: str, text: str) -> None:
        self.texts[capability_id] = text

    def remove(self, capability_id: str) -> None:
        self.texts.pop(capability_id, None)

    def rank(self, query: str, *, candidates: AbstractSet[str] | None, limit: int,
             min_similarity: float = 0.0) -> list[tuple[str, float]]:
        qvec = normalize(self.embedder.embed_query(query))
        if not any(qvec):
            return []
        ids = sorted(self.texts if candidates is None else candidates & self.texts.keys())
        vectors = self.embedder.embed_documents([self.texts[d] for d in ids])
        kept = [(d, s) for d, v in zip(ids, vectors, strict=True)
                if (s := cosine(normalize(v), qvec)) > min_similarity]
        return heapq.nsmallest(limit, kept, key=lambda kv: (-kv[1], kv[0]))


def doc(cid: str, name: str, description: str = "", params: tuple[str, ...] = ()) -> CapabilityDoc:
    return CapabilityDoc(cid, "function", name, description, "", params)


CATALOG = [
    doc("c-inv-get", "getInvoice", "Get a supplier invoice by ID.", ("invoice_id",)),
    doc("c-inv-create", "create_invoice", "创建一张供应商发票。", ("supplier_id", "amount")),
    doc("c-po-list", "listPurchaseOrders", "按状态分页查询采购订单列表。", ("status",)),
    doc("c-stock", "wms_stock_query", "查询实时库存，返回各仓库可用数量。", ("sku",)),
    doc("c-leave", "请假申请", "提交请假申请并自动找到审批人。", ("leave_type",)),
    doc("c-restart", "ops_restart_host", "Restart a server gracefully.", ("host_id",)),
    doc("c-fx", "fx_convert", "Convert an amount between currencies.", ("amount",)),
]

# the fake's cosines are large for everything sharing a concept; no floor in these tests
CFG = FusionConfig(k=5.0, dense_weight=0.75, depth=50, min_similarity=0.0)


def build(
    docs: list[CapabilityDoc] = CATALOG,
    *,
    embedder: Embedder | None = None,
    fusion: FusionConfig = CFG,
) -> LexicalIndex:
    index = LexicalIndex(embedder=embedder, fusion=fusion)
    for d in docs:
        index.upsert(d)
    return index


# ---------------------------------------------------------------- RRF
def test_rrf_sums_weighted_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion([(["a", "b", "c"], 1.0), (["c", "a"], 0.5)], k=10)
    expected = {
        "a": 1 / 11 + 0.5 / 12,
        "b": 1 / 12,
        "c": 1 / 13 + 0.5 / 11,
    }
    assert [d for d, _ in fused] == sorted(expected, key=lambda d: -expected[d])
    for d, score in fused:
        assert math.isclose(score, expected[d])


def test_rrf_ties_break_by_id_and_limit_truncates() -> None:
    fused = reciprocal_rank_fusion([(["b", "a"], 1.0), (["a", "b"], 1.0)], k=60)
    assert [d for d, _ in fused] == ["a", "b"]  # equal scores
    assert math.isclose(fused[0][1], fused[1][1])
    assert reciprocal_rank_fusion([(["x", "y", "z"], 1.0)], limit=2) == reciprocal_rank_fusion(
        [(["x", "y", "z"], 1.0)]
    )[:2]
    assert reciprocal_rank_fusion([(["x"], 1.0)], limit=0) == []


def test_rrf_counts_a_duplicate_at_its_best_rank_and_skips_zero_weights() -> None:
    fused = dict(reciprocal_rank_fusion([(["a", "a", "b"], 1.0), (["z"], 0.0)], k=0))
    assert fused == {"a": 1.0, "b": 0.5}


def test_rrf_and_fusion_config_validate() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([], k=-1)
    with pytest.raises(ValueError):
        FusionConfig(depth=-1)
    with pytest.raises(ValueError):
        FusionConfig(dense_weight=-0.1)
    with pytest.raises(ValueError):
        FusionConfig(query_cache=-1)


# ---------------------------------------------------------------- vectors
def test_normalize_and_cosine() -> None:
    v = normalize([3.0, 4.0])
    assert v == pytest.approx((0.6, 0.8))
    assert normalize([0.0, 0.0]) == (0.0, 0.0)
    assert cosine(v, v) == pytest.approx(1.0)


def test_embedding_text_reads_identifiers_as_words() -> None:
    text = embedding_text("getInvoice", "Get one invoice.", "Only for AP.", ("invoice_id", "x"))
    assert text == "get Invoice. Get one invoice.. Only for AP.. params: invoice id, x"
    assert embedding_text("请假申请", "") == "请假申请"


def test_vector_store_embeds_lazily_in_batches_and_only_changed_texts() -> None:
    fake = FakeEmbedder()
    store = VectorStore(fake)
    for i in range(5):
        store.upsert(f"d{i}", f"invoice {i}")
    assert fake.document_calls == [] and store.pending == 5
    assert store.flush(batch_size=2) == 5
    assert [len(c) for c in fake.document_calls] == [2, 2, 1]
    store.upsert("d1", "invoice 1")  # same text: nothing to do
    store.upsert("d2", "stock 2")  # changed: re-embedded alone
    assert store.flush() == 1
    assert fake.document_calls[-1] == ["stock 2"]
    store.remove("d3")
    hits = store.rank("invoice", candidates=None, limit=10)
    assert {d for d, _ in hits} == {"d0", "d1", "d4", "d2"}  # d2 only via the constant part
    assert hits[-1][0] == "d2"


def test_vector_store_caches_query_vectors() -> None:
    fake = FakeEmbedder()
    store = VectorStore(fake, query_cache_size=2)
    store.upsert("d", "invoice")
    for q in ["invoice", "invoice", "stock", "invoice", "fx", "stock"]:
        store.rank(q, candidates=None, limit=1)
    assert fake.query_calls == ["invoice", "stock", "fx", "stock"]
    uncached = FakeEmbedder()
    store = VectorStore(uncached, query_cache_size=0)
    store.upsert("d", "invoice")
    for _ in range(3):
        store.rank("invoice", candidates=None, limit=1)
    assert uncached.query_calls == ["invoice"] * 3


def test_vector_store_matches_the_pure_python_reference() -> None:
    texts = {c.capability_id: embedding_text(c.name, c.description) for c in CATALOG}

    def ranked(store: VectorStore | ReferenceStore) -> list[list[tuple[str, float]]]:
        for cid, text in texts.items():
            store.upsert(cid, text)
        out = []
        for q in ["supplier invoice", "供应商发票", "reboot", "库存", "nothing here"]:
            out.append(store.rank(q, candidates=None, limit=10))
            out.append(store.rank(q, candidates=frozenset({"c-stock", "c-inv-get"}), limit=10))
        return out

    with_numpy = ranked(VectorStore(FakeEmbedder()))
    without = ranked(ReferenceStore(FakeEmbedder()))
    assert [[d for d, _ in r] for r in with_numpy] == [[d for d, _ in r] for r in without]
    for a, b in zip(with_numpy, without, strict=True):
        assert [s for _, s in a] == pytest.approx([s for _, s in b], abs=1e-6)


def _by_score(hits: list[tuple[str, float]]) -> list[tuple[float, str]]:
    return sorted((-round(x, 5), d) for d, x in hits)


def test_vector_store_churn_matches_pure_python() -> None:
    """Row reuse, growth and in-place updates give the same rankings as plain dicts."""
    words = [w for concept in CONCEPTS for w in concept]
    rng = random.Random(3)
    fast = VectorStore(FakeEmbedder())
    slow = ReferenceStore(FakeEmbedder())
    live: set[str] = set()
    for step in range(400):
        cid = f"d{rng.randrange(60)}"
        if cid in live and rng.random() < 0.3:
            fast.remove(cid)
            slow.remove(cid)
            live.discard(cid)
        else:
            text = " ".join(rng.sample(words, 3))
            fast.upsert(cid, text)
            slow.upsert(cid, text)
            live.add(cid)
        if step % 25 == 0:
            q = " ".join(rng.sample(words, 2))
            cands = frozenset(rng.sample(sorted(live), min(10, len(live)))) if live else None
            for c in (None, cands):
                for limit in (7, 100):  # 100 > every live document: nothing cut in a tie
                    a = fast.rank(q, candidates=c, limit=limit, min_similarity=0.1)
                    b = slow.rank(q, candidates=c, limit=limit, min_similarity=0.1)
                    assert [x for _, x in a] == pytest.approx([x for _, x in b], abs=1e-6)
                    assert {d for d, _ in a} <= live
                # float32 vs float64 may order exact ties differently; ids agree per score
                assert _by_score(a) == _by_score(b)


# ---------------------------------------------------------------- fused search
def test_without_embedder_search_is_the_exact_lexical_search() -> None:
    index = build()
    assert not index.fused and index.embedder is None
    assert index.refresh_embeddings() == 0
    for q in ["supplier invoice", "供应商发票", "库存", "restart host", "nothing"]:
        for limit in (1, 3, 10):
            assert index.search(q, limit=limit) == index.search_lexical(q, limit=limit)


def test_fused_search_is_rrf_of_lexical_and_dense_rankings() -> None:
    fake = FakeEmbedder()
    index = build(embedder=fake)
    assert index.fused and index.embedder is fake
    q = "supplier invoice"
    lexical = [d for d, _ in index.search_lexical(q, limit=50)]
    store = VectorStore(FakeEmbedder())
    for c in CATALOG:
        store.upsert(c.capability_id, embedding_text(c.name, c.description, "", c.param_names))
    dense = [d for d, _ in store.rank(q, candidates=None, limit=50)]
    expected = reciprocal_rank_fusion([(lexical, 1.0), (dense, 0.75)], k=5.0, limit=3)
    assert index.search(q, limit=3) == expected
    assert index.search(q, limit=3)[0][0] in {"c-inv-get", "c-inv-create"}


def test_dense_ranking_finds_what_words_do_not() -> None:
    index = build(embedder=FakeEmbedder())
    q = "holiday"  # no lexical match (not in the glossary); the fake knows holiday ~ 请假
    assert index.search_lexical(q, limit=5) == []
    assert index.search(q, limit=1)[0][0] == "c-leave"


def test_min_similarity_drops_weak_dense_hits() -> None:
    strict = FusionConfig(k=5.0, dense_weight=0.75, depth=50, min_similarity=0.5)
    index = build(embedder=FakeEmbedder(), fusion=strict)
    assert index.search("the weather tomorrow", limit=5) == []  # only the constant part
    assert [d for d, _ in index.search("holiday", limit=5)] == ["c-leave"]


def test_fused_search_respects_candidates_and_limits() -> None:
    index = build(embedder=FakeEmbedder())
    allowed = {"c-stock", "c-fx", "c-inv-create"}
    for q in ["supplier invoice", "库存", "vacation"]:
        hits = index.search(q, candidates=allowed, limit=10)
        assert {d for d, _ in hits} <= allowed
    assert index.search("supplier invoice", candidates=set(), limit=5) == []
    assert index.search("supplier invoice", limit=0) == []
    assert index.search("   ", limit=5) == []
    assert len(index.search("supplier invoice", limit=2)) == 2


def test_fused_index_follows_upserts_and_removes() -> None:
    fake = FakeEmbedder()
    index = build(embedder=fake)
    assert index.refresh_embeddings() == len(CATALOG)
    assert index.refresh_embeddings() == 0
    index.search("vacation", limit=3)
    assert len(fake.document_calls) == 1  # everything was embedded in one batch
    index.remove("c-leave")
    assert all(d != "c-leave" for d, _ in index.search("vacation", limit=10))
    index.upsert(doc("c-holiday", "book_time_off", "Book time off for an employee."))
    assert index.search("vacation", limit=1)[0][0] == "c-holiday"
    assert fake.document_calls[-1] == [
        embedding_text("book_time_off", "Book time off for an employee.")
    ]
    index.upsert(doc("c-holiday", "book_time_off", "Book time off for an employee."))
    assert index.refresh_embeddings() == 0  # unchanged document: no re-embedding


def test_fused_results_do_not_depend_on_update_order() -> None:
    docs = list(CATALOG)
    queries = ["supplier invoice", "供应商发票", "vacation", "库存 stock", "fx currency"]
    reference = build(docs, embedder=FakeEmbedder())
    expected = [reference.search(q, limit=5) for q in queries]
    rng = random.Random(7)
    for _ in range(3):
        rng.shuffle(docs)
        index = LexicalIndex(embedder=FakeEmbedder(), fusion=CFG)
        for d in docs:
            index.upsert(d)
            index.search("warm", limit=1)  # interleave searches with updates
        assert [index.search(q, limit=5) for q in queries] == expected


def test_a_failing_embedder_falls_back_to_the_lexical_ranking() -> None:
    class Broken(FakeEmbedder):
        def embed_query(self, text: str) -> list[float]:
            raise RuntimeError("model crashed")

    index = build(embedder=Broken())
    assert index.search("supplier invoice", limit=3) == index.search_lexical(
        "supplier invoice", limit=3
    )


# ---------------------------------------------------------------- settings
def test_embedder_from_setting() -> None:
    for off in (None, "", "off", "OFF", " none ", "0"):
        assert embedder_from_setting(off) is None
    with pytest.raises(EmbeddingsUnavailable):
        embedder_from_setting("no-such-model")


# ---------------------------------------------------------------- score fusion
def test_score_fusion_is_a_convex_combination_of_normalised_bm25_and_cosine() -> None:
    lexical = [("a", 8.0), ("b", 4.0)]
    dense = [("b", 0.9), ("c", 0.5)]
    fused = dict(score_fusion(lexical, dense, dense_share=0.25))
    assert fused["a"] == pytest.approx(0.75 * 1.0)
    assert fused["b"] == pytest.approx(0.75 * 0.5 + 0.25 * 0.9)
    assert fused["c"] == pytest.approx(0.25 * 0.5)
    # share 0 is the lexical order, share 1 the dense order
    assert [d for d, _ in score_fusion(lexical, dense, dense_share=0.0)] == ["a", "b"]
    assert [d for d, _ in score_fusion(lexical, dense, dense_share=1.0)] == ["b", "c"]


def test_score_fusion_ties_limits_and_validation() -> None:
    [(top, top_score)] = score_fusion([("b", 1.0), ("a", 1.0)], [], limit=1)
    assert top == "a" and top_score == pytest.approx(0.7)
    [(only, only_score)] = score_fusion([], [("x", 0.4)], dense_share=0.5)
    assert only == "x" and only_score == pytest.approx(0.2)
    assert score_fusion([("a", 1.0)], [], limit=0) == []
    with pytest.raises(ValueError):
        score_fusion([], [], dense_share=1.5)
    with pytest.raises(ValueError):
        FusionConfig(method="max")
    with pytest.raises(ValueError):
        FusionConfig(dense_share=-0.1)


def test_index_default_fusion_is_the_tuned_score_fusion() -> None:
    index = LexicalIndex(embedder=FakeEmbedder())
    for d in CATALOG:
        index.upsert(d)
    assert index.fusion == TUNED_FUSION and TUNED_FUSION.method == SCORE
    q = "supplier invoice"
    cfg = TUNED_FUSION
    lexical = index.search_lexical(q, limit=cfg.depth)
    store = VectorStore(FakeEmbedder())
    for c in CATALOG:
        store.upsert(c.capability_id, embedding_text(c.name, c.description, "", c.param_names))
    dense = store.rank(q, candidates=None, limit=cfg.depth, min_similarity=cfg.min_similarity)
    expected = score_fusion(lexical, dense, dense_share=cfg.dense_share, limit=3)
    assert index.search(q, limit=3) == expected
    assert index.search(q, limit=1)[0][0] in {"c-inv-get", "c-inv-create"}
