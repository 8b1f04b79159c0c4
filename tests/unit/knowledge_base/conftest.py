"""The demo knowledge base folded into a fresh store, as the service would (no servers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader

from bkn_common.contracts.events import decode_event, encode_event
from clctl.kb import apply_events, load_folder

DEMO = Path(__file__).resolve().parents[3] / "examples" / "knowledge_base"


def fold(state: KnowledgeState, events: list) -> None:  # type: ignore[type-arg]
    for event in events:
        state.apply(decode_event(encode_event(event)))


@pytest.fixture()
def demo_state() -> KnowledgeState:
    state = KnowledgeState()
    fold(state, apply_events("handbook", "Handbook", ["dev"], load_folder(DEMO, 1_048_576), None))
    return state


@pytest.fixture()
def reader() -> Reader:
    return Reader("dev", "/openapi/v2/knowledge-bases", 1_048_576, 50)
