"""The Embedder contract (tests/contracts/embedder.py) on the unit suite's ``FakeEmbedder`` and on
the packaged model (in-process, no server: it runs here too)."""

from __future__ import annotations

import pytest

from capability_index.adapters.embedders import UniversalSentenceEncoder
from capability_index.domain.embeddings import Embedder
from tests.contracts.embedder import EmbedderContract
from tests.unit.capability_index.fakes import FakeEmbedder


class TestFakeEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder(self) -> Embedder:
        return FakeEmbedder()


@pytest.fixture(scope="module")
def packaged() -> Embedder:
    return UniversalSentenceEncoder()


class TestUniversalSentenceEncoder(EmbedderContract):
    @pytest.fixture
    def embedder(self, packaged: Embedder) -> Embedder:
        return packaged
