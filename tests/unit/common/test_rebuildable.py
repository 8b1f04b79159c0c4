"""Every consumer of the topic table exposes its rebuildable store through a bkn.replay entry
point, and clctl finds it there without importing service packages itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bkn_common.contracts.asyncapi import RECEIVES, short_name
from bkn_common.contracts.topics import CONSUMER_TOPICS
from bkn_common.framework import rebuildable

CLCTL = Path(__file__).resolve().parents[3] / "libs" / "clctl" / "src" / "clctl"
SERVICE_PACKAGES = {"capability_index", "tool_executor", "trace_recorder", "ontology_query", "gateway"}


def test_every_consumer_registers_a_rebuildable_store() -> None:
    assert set(rebuildable.registered()) == set(CONSUMER_TOPICS)


@pytest.mark.parametrize("name", sorted(CONSUMER_TOPICS))
def test_each_entry_point_opens_a_fresh_empty_store_on_the_tables_topics(name: str) -> None:
    target = rebuildable.load(name)
    assert target.consumer == name
    assert target.topics == CONSUMER_TOPICS[name].projection
    with target.open_store() as first, target.open_store() as second:
        assert first is not second
        assert first.snapshot() == second.snapshot()


def test_an_unknown_name_is_refused_with_the_installed_ones() -> None:
    with pytest.raises(LookupError, match="capability-index"):
        rebuildable.load("no-such-service")


def test_clctl_imports_no_service_package() -> None:
    for source in CLCTL.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not {n.split(".")[0] for n in names} & SERVICE_PACKAGES, source


def test_the_asyncapi_operations_read_the_topic_table() -> None:
    assert {c: tuple(short_name(t) for t in topics.reads) for c, topics in CONSUMER_TOPICS.items()} == RECEIVES
