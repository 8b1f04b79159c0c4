"""Fakes of capability-index's ports for unit tests."""

from __future__ import annotations

from collections.abc import Sequence

# each concept is one dimension; a text's vector counts the concept words it contains
CONCEPTS: tuple[tuple[str, ...], ...] = (
    ("invoice", "发票", "bill"),
    ("supplier", "供应商", "vendor"),
    ("purchase", "采购", "po"),
    ("stock", "库存", "inventory"),
    ("leave", "请假", "vacation", "holiday", "time off"),
    ("restart", "重启", "reboot"),
    ("currency", "汇率", "fx"),
)


class FakeEmbedder:
    """The Embedder port without a model: a text's vector counts the concept words it holds.
    The contract it passes with the packaged model: tests/contracts/embedder.py."""

    name = "fake"

    def __init__(self) -> None:
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []

    @staticmethod
    def vector(text: str) -> list[float]:
        low = text.lower()
        # a constant component keeps every vector non-zero (like a real model's "topic")
        return [0.05] + [float(sum(low.count(w) for w in words)) for words in CONCEPTS]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.document_calls.append(list(texts))
        return [self.vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.query_calls.append(text)
        return self.vector(text)
