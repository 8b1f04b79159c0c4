"""Unit tests for the capability ranking engine (tokenizer, query analysis, BM25F index)."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

from capability_index.domain.documents import CapabilityDoc
from capability_index.domain.glossary import GLOSSARY, GROUP_KINDS
from capability_index.domain.query import KIND_WEIGHTS, analyze_query
from capability_index.domain.ranking import LexicalIndex
from capability_index.domain.synonyms import SynonymExpander
from capability_index.domain.tokenizer import primary_terms, stem, tokenize


def doc(
    cid: str, name: str, description: str = "", use_rule: str = "", params: tuple[str, ...] = ()
) -> CapabilityDoc:
    return CapabilityDoc(cid, "function", name, description, use_rule, params)


CATALOG = [
    doc("c-inv-get", "getInvoice", "Get a supplier invoice by ID.", params=("invoice_id",)),
    doc("c-inv-create", "create_invoice", "创建一张供应商发票。", params=("supplier_id", "amount")),
    doc(
        "c-po-list", "listPurchaseOrders", "按状态分页查询采购订单列表。", params=("status", "page")
    ),
    doc(
        "c-po-cancel", "cancel_purchase_order", "Cancel a purchase order that is not yet received."
    ),
    doc(
        "c-fx",
        "fx_convert",
        "Convert an amount between currencies.",
        params=("amount", "from_currency"),
    ),
    doc(
        "c-stock",
        "wms_stock_query",
        "查询实时库存，返回各仓库可用数量。",
        "用户询问库存时使用。",
        ("sku",),
    ),
    doc(
        "c-leave", "请假申请", "提交请假申请并自动找到审批人。", params=("leave_type", "start_date")
    ),
    doc("c-restart", "ops_restart_host", "Restart a server gracefully.", params=("host_id",)),
]


def build(docs: list[CapabilityDoc] = CATALOG, *, synonyms: bool = True) -> LexicalIndex:
    index = LexicalIndex(synonyms=synonyms)
    for d in docs:
        index.upsert(d)
    return index


# ---------------------------------------------------------------- tokenizer
def test_tokenizer_english_lowercases_stems_and_drops_stopwords() -> None:
    assert tokenize("List the Invoices of a Supplier") == ["list", "invoic", "supplier"]
    assert stem("approved") == stem("approving") == stem("approve")
    assert stem("queries") == "query"


def test_tokenizer_splits_snake_and_camel_case_and_keeps_full_identifier() -> None:
    assert tokenize("fx_convert") == ["fx", "convert", "fx_convert"]
    assert tokenize("getInvoiceList") == ["get", "invoic", "list", "get_invoice_list"]
    assert "po" in tokenize("open POs")  # plural acronym
    assert tokenize("SKU 10023") == ["sku", "10023"]


def test_tokenizer_chinese_words_and_bigrams() -> None:
    tokens = tokenize("采购订单审批")
    assert {"采购订单", "采购", "订单", "审批"} <= set(tokens)
    assert "购订" in tokens  # character bigram across the word-internal boundary
    assert "单审" in tokens  # bigram straddling two words
    # stopwords and pure function-word bigrams are dropped
    assert not {"的", "了", "帮我"} & set(tokenize("帮我查一下库存的数量了"))


def test_tokenizer_mixed_text_and_fullwidth() -> None:
    tokens = tokenize("查询ＰＯ状态 getPO")
    assert "po" in tokens and "查询" in tokens and "状态" in tokens
    assert primary_terms("采购订单 purchase orders") == ["采购订单", "purchas", "order"]


def test_jieba_is_quiet() -> None:
    tokenize("初始化分词器")
    assert logging.getLogger("jieba").getEffectiveLevel() >= logging.WARNING


# ---------------------------------------------------------------- query analysis
def test_glossary_translation_is_an_alternative_not_an_extra_concept() -> None:
    expander = SynonymExpander([("invoice", "发票")])
    concepts = analyze_query("发票", expander=expander)
    assert len(concepts) == 1
    assert {alt.terms for alt in concepts[0].alternatives} == {("发票",), ("invoic",)}


def test_longest_glossary_match_wins() -> None:
    expander = SynonymExpander([("order", "订单"), ("purchase order", "采购订单")])
    concepts = analyze_query("purchase order", expander=expander)
    terms = set().union(*(c.terms for c in concepts))
    assert "采购订单" in terms and "订单" not in terms


# ---------------------------------------------------------------- ranking
def test_name_match_beats_description_match() -> None:
    index = build(
        [
            doc("a-desc", "create_record", "Create an invoice record for a supplier."),
            doc("b-name", "create_invoice", "Create a record for a supplier."),
        ],
        synonyms=False,
    )
    hits = index.search("invoice", limit=10)
    assert [cid for cid, _ in hits] == ["b-name", "a-desc"]
    assert hits[0][1] > hits[1][1] > 0.0


def test_basic_relevance_chinese_english_and_cross_lingual() -> None:
    index = build()
    assert index.search("现在库存还有多少", limit=3)[0][0] == "c-stock"
    assert index.search("restart the web server", limit=3)[0][0] == "c-restart"
    assert index.search("convert dollars to euros", limit=3)[0][0] == "c-fx"
    # Chinese query, English-only capability: bridged by the glossary
    assert index.search("重启服务器", limit=3)[0][0] == "c-restart"
    assert index.search("取消采购订单", limit=3)[0][0] == "c-po-cancel"


def test_only_positive_scores_are_returned() -> None:
    index = build()
    hits = index.search("invoice", limit=50)
    assert hits and all(score > 0.0 for _, score in hits)
    assert {cid for cid, _ in hits} == {"c-inv-get", "c-inv-create"}
    assert index.search("zebra quantum banana", limit=10) == []


def test_empty_and_degenerate_queries() -> None:
    index = build()
    assert index.search("", limit=10) == []
    assert index.search("   \t\n", limit=10) == []
    assert index.search("the of and", limit=10) == []  # stopwords only
    assert index.search("的了吗", limit=10) == []
    assert index.search("invoice", limit=0) == []
    assert index.search("invoice", candidates=[], limit=10) == []
    assert LexicalIndex().search("invoice", limit=10) == []


def _random_catalog(n: int, seed: int = 3) -> list[CapabilityDoc]:
    rng = random.Random(seed)
    verbs = [
        "create",
        "get",
        "list",
        "update",
        "cancel",
        "approve",
        "export",
        "查询",
        "新建",
        "审批",
    ]
    nouns = [
        "invoice",
        "order",
        "supplier",
        "stock",
        "shipment",
        "employee",
        "发票",
        "订单",
        "库存",
        "运单",
    ]
    docs = []
    for i in range(n):
        v, o = rng.choice(verbs), rng.choice(nouns)
        words = " ".join(rng.choice(verbs + nouns) for _ in range(rng.randint(2, 12)))
        docs.append(doc(f"d{i:04d}", f"{v}_{o}" if v.isascii() and o.isascii() else v + o, words))
    return docs


QUERIES = [
    "create invoice",
    "查询订单",
    "approve supplier order",
    "库存 stock",
    "export 运单 shipment list",
]


def test_candidate_restriction_is_exact_and_never_leaks() -> None:
    index = build(_random_catalog(400))
    rng = random.Random(5)
    all_ids = [f"d{i:04d}" for i in range(400)]
    for size in (1, 7, 50, 399):
        candidates = set(rng.sample(all_ids, size))
        for q in QUERIES:
            hits = index.search(q, candidates=candidates, limit=10)
            assert {cid for cid, _ in hits} <= candidates
            full = [h for h in index.search(q, limit=10_000) if h[0] in candidates][:10]
            assert hits == full
            # any Collection works, not only sets
            assert index.search(q, candidates=list(candidates), limit=10) == hits


def test_top_k_pruning_matches_exhaustive_ranking() -> None:
    index = build(_random_catalog(500, seed=9))
    for q in QUERIES:
        everything = index.search(q, limit=10_000)
        for k in (1, 3, 10, 25):
            assert index.search(q, limit=k) == everything[:k]


def test_upsert_replaces_document() -> None:
    index = build()
    assert index.search("restart server", limit=1)[0][0] == "c-restart"
    index.upsert(doc("c-restart", "ops_scale_deployment", "Scale a deployment to N replicas."))
    assert len(index) == len(CATALOG)
    assert "c-restart" not in [cid for cid, _ in index.search("restart", limit=10)]
    assert index.search("scale replicas", limit=1)[0][0] == "c-restart"
    stored = index.get("c-restart")
    assert stored is not None and stored.name == "ops_scale_deployment"


def test_remove_and_membership() -> None:
    index = build()
    assert "c-fx" in index and len(index) == len(CATALOG)
    assert index.remove("c-fx") is True
    assert index.remove("c-fx") is False
    assert "c-fx" not in index and len(index) == len(CATALOG) - 1
    assert index.search("fx_convert currencies", limit=10) == []


def test_incremental_statistics_equal_a_fresh_build() -> None:
    docs = _random_catalog(120, seed=11)
    incremental = build(docs)
    for d in docs[::3]:
        incremental.remove(d.capability_id)
    for d in docs[1::3]:  # replace a third of the documents
        incremental.upsert(doc(d.capability_id, d.name + "_v2", d.description + " update"))
    fresh_docs = [
        doc(d.capability_id, d.name + "_v2", d.description + " update") if i % 3 == 1 else d
        for i, d in enumerate(docs)
        if i % 3 != 0
    ]
    fresh = build(fresh_docs)
    for q in QUERIES:
        # collection statistics are exact integers: scores are identical, not just close
        assert incremental.search(q, limit=20) == fresh.search(q, limit=20)


def test_deterministic_ranking_and_tie_break_by_id() -> None:
    twins = [doc(cid, "get_invoice", "Get an invoice.") for cid in ("z-3", "a-1", "m-2")]
    index = build(twins)
    hits = index.search("invoice", limit=10)
    assert [cid for cid, _ in hits] == ["a-1", "m-2", "z-3"]
    assert hits[0][1] == hits[1][1] == hits[2][1]
    docs = _random_catalog(200, seed=21)
    forward, backward = build(docs), build(list(reversed(docs)))
    for q in QUERIES:
        assert forward.search(q, limit=15) == backward.search(q, limit=15)
        assert forward.search(q, limit=15) == forward.search(q, limit=15)


def test_repeated_search_after_updates_uses_fresh_statistics() -> None:
    index = build(_random_catalog(100, seed=2))
    before = index.search("create invoice", limit=5)
    index.upsert(doc("new-1", "create_invoice", "create invoice invoice"))
    after = index.search("create invoice", limit=5)
    assert after[0][0] == "new-1" and after != before
    index.remove("new-1")
    assert index.search("create invoice", limit=5) == before


def test_a_reused_candidate_restriction_follows_index_updates() -> None:
    index = build()
    restriction = index.candidates({"c-inv-get", "c-new"})
    assert [cid for cid, _ in index.search("invoice", candidates=restriction, limit=5)] == ["c-inv-get"]
    index.upsert(doc("c-new", "invoice_archive", "Archive an invoice."))
    index.remove("c-fx")  # frees a slot that the next document reuses
    index.upsert(doc("c-other", "invoice_export", "Export an invoice."))
    hits = {cid for cid, _ in index.search("invoice", candidates=restriction, limit=5)}
    assert hits == {"c-inv-get", "c-new"}
    assert index.rank("invoice", candidates=restriction, limit=1).matched == 2


def test_match_count_equals_the_number_of_positive_scores() -> None:
    index = build(_random_catalog(300, seed=4))
    for q in QUERIES:
        assert index.match_count(q) == len(index.search(q, limit=10_000))


# ---------------------------------------------------------------- kinds of query words
KINDED = SynonymExpander(
    [("create", "新建"), ("month", "月度"), ("invoice", "发票")],
    kinds=["operation", "period", "term"],
)


def _weights(query: str, kind_weights: dict[str, float] | None = None) -> dict[str, float]:
    """Best alternative weight per concept, keyed by the concept's first term."""
    kwargs = {} if kind_weights is None else {"kind_weights": kind_weights}
    concepts = analyze_query(query, expander=KINDED, **kwargs)  # type: ignore[arg-type]
    return {c.alternatives[0].terms[0]: max(a.weight for a in c.alternatives) for c in concepts}


def test_operation_period_and_number_words_weigh_less_than_object_words() -> None:
    weights = _weights("create the invoice for this month 2024")
    assert weights[stem("invoice")] == 1.0
    assert weights[stem("create")] == KIND_WEIGHTS["operation"] < 1.0
    assert weights[stem("month")] == KIND_WEIGHTS["period"] < 1.0
    assert weights["2024"] == KIND_WEIGHTS["number"] < 1.0
    flat = {"term": 1.0, "operation": 1.0, "period": 1.0, "number": 1.0}
    assert set(_weights("create the invoice for this month 2024", flat).values()) == {1.0}


def test_a_word_that_is_also_an_object_term_keeps_its_full_weight() -> None:
    expander = SynonymExpander([("post", "过账"), ("post", "发布")], kinds=["operation", "term"])
    concepts = analyze_query("post", expander=expander)
    assert max(a.weight for c in concepts for a in c.alternatives) == 1.0


def test_glossary_kinds_cover_every_group() -> None:
    assert len(GROUP_KINDS) == len(GLOSSARY)
    assert set(GROUP_KINDS) == {"operation", "period", "term"}
    with pytest.raises(ValueError):
        SynonymExpander([("a", "b")], kinds=["term", "term"])


def test_object_match_outranks_operation_only_match() -> None:
    index = LexicalIndex(synonyms=KINDED)
    for d in (
        doc("c-create-order", "create_order", "Create a sales order."),
        doc("c-get-invoice", "get_invoice", "Get one invoice."),
        doc("c-create-invoice", "create_invoice", "Create an invoice."),
    ):
        index.upsert(d)
    ranked = [cid for cid, _ in index.search("新建发票", limit=3)]
    assert ranked == ["c-create-invoice", "c-get-invoice", "c-create-order"]


# ---------------------------------------------------------------- phrase coverage
def scores(docs: list[CapabilityDoc], query: str, **options: Any) -> dict[str, float]:
    """Scores of ``query`` over ``docs`` in an index built with ``options``."""
    index = LexicalIndex(**options)
    for d in docs:
        index.upsert(d)
    return dict(index.search(query, limit=len(docs)))


def test_partial_phrase_match_is_discounted_by_coverage() -> None:
    expander = SynonymExpander([("客户发票", "customer invoice")])
    docs = [
        doc("c-full", "send_document", "Send the customer invoice."),
        doc("c-part", "send_document", "Send the customer letter."),
        doc("c-other", "archive", "Archive old records."),
    ]

    plain = scores(docs, "客户发票", synonyms=expander, phrase_coverage=0.0)
    covered = scores(docs, "客户发票", synonyms=expander, phrase_coverage=1.0)
    assert covered["c-full"] == pytest.approx(plain["c-full"])  # all terms present: no discount
    assert covered["c-part"] == pytest.approx(plain["c-part"] / 2)  # one of two terms
    assert "c-other" not in covered


def test_a_rare_translation_counts_no_more_than_the_word_as_written() -> None:
    expander = SynonymExpander([("lead", "prospect")])
    docs = [
        doc("c-lead", "add_lead", "Add a lead."),
        doc("c-prospect", "add_prospect", "Add a prospect."),
        doc("c-list", "list_lead", "List lead records."),
        doc("c-score", "score_lead", "Score a lead."),
    ]

    own = scores(docs, "lead", synonyms=expander, concept_idf_share=0.0)
    shared = scores(docs, "lead", synonyms=expander, concept_idf_share=1.0)
    assert own["c-prospect"] > own["c-lead"]  # the rarer spelling wins on idf alone
    assert shared["c-prospect"] == pytest.approx(shared["c-lead"])  # the written word's idf
    assert shared["c-lead"] == pytest.approx(own["c-lead"])  # the written word is unchanged
