"""The store and the read handlers over the demo base: ids, navigation, relations, cursors."""

from __future__ import annotations

import pytest
from knowledge_base.domain.files import source_file_id
from knowledge_base.service_layer import reading
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader

from bkn_common.contracts import events as ev
from bkn_common.contracts.openapi_errors import OpenApiError
from tests.unit.knowledge_base.conftest import fold


def code(exc: pytest.ExceptionInfo[OpenApiError]) -> tuple[str, str | None]:
    return exc.value.code, (exc.value.details or {}).get("reason")


def test_replay_twice_is_idempotent(demo_state: KnowledgeState) -> None:
    before = demo_state.snapshot()
    from clctl.kb import apply_events, load_folder
    from tests.unit.knowledge_base.conftest import DEMO
    fold(demo_state, apply_events("handbook", "Handbook", ["dev"], load_folder(DEMO, 1_048_576), None))
    assert demo_state.snapshot() == before


def test_ids_are_stable_per_path_and_never_shared() -> None:
    # pinned: readActions and agents keep ids across restarts and re-applies
    assert source_file_id("kb", "pages/a.md") == "source-file-6c9b4dbf-ed05-563c-8f50-bb1000b9463c"
    assert source_file_id("kb", "pages/a.md") != source_file_id("kb", "pages/b.md")
    assert source_file_id("kb", "pages/a.md") != source_file_id("kb2", "pages/a.md")


def test_a_manifest_file_without_its_content_is_unavailable() -> None:
    state = KnowledgeState()
    fold(state, [ev.KnowledgeBaseApplied(kb_id="k", name="K", readers=("dev",), content_revision=1,
                                         manifest={"index.md": "0" * 64})])
    view = state.view("k")
    assert view is not None and view.files["index.md"].available is False
    reader = Reader("dev", "/p", 1000, 10)
    tree = reading.list_tree(state, reader, "k", "", None, None)
    assert tree["items"][-1]["generatedOutputStatus"] == "unavailable"


def test_files_of_the_next_apply_keep_the_current_view_cached(demo_state: KnowledgeState) -> None:
    view = demo_state.view("handbook")
    path = "pages/next-revision-only.md"
    fold(demo_state, [ev.KnowledgeFileUpserted(kb_id="handbook", path=path, content="# Next\n",
                                               content_sha256="1" * 64, size_bytes=7),
                      ev.KnowledgeFileRemoved(kb_id="handbook", path="index.md")])
    assert demo_state.view("handbook") is view  # nothing readable changed: no rebuild
    fold(demo_state, [ev.KnowledgeBaseApplied(
        kb_id="handbook", name="Handbook", readers=("dev",), content_revision=view.revision + 1,
        manifest={path: "1" * 64})])
    after = demo_state.view("handbook")
    assert after is not view and after.files[path].available and after.files[path].title == "Next"


def test_readers_only_and_not_found_for_the_rest(demo_state: KnowledgeState) -> None:
    with pytest.raises(OpenApiError) as refused:
        reading.list_tree(demo_state, Reader("viewer", "/p", 10, 10), "handbook", "", None, None)
    assert refused.value.code == "NOT_FOUND"


def test_tree_cursor_is_bound_to_revision_and_shape(demo_state: KnowledgeState, reader: Reader) -> None:
    first = reading.list_tree(demo_state, reader, "handbook", "pages/hr", None, 2)
    with pytest.raises(OpenApiError) as refused:
        reading.list_tree(demo_state, reader, "handbook", "pages/hr", first["nextCursor"], 3)
    assert code(refused) == ("VALIDATION_ERROR", "stale_cursor")
    with pytest.raises(OpenApiError) as garbage:
        reading.list_tree(demo_state, reader, "handbook", "pages/hr", "!!", 2)
    assert code(garbage) == ("VALIDATION_ERROR", "invalid_cursor")


def test_read_file_limits_and_exactly_one_key(demo_state: KnowledgeState) -> None:
    small = Reader("dev", "/p", 2000, 10)
    with pytest.raises(OpenApiError) as big:
        reading.read_file(demo_state, small, "handbook", None, "pages/handbook/employee-handbook.md")
    assert big.value.code == "PAYLOAD_TOO_LARGE" and big.value.status == 413
    for file_id, path in ((None, None), ("x", "pages/it/vpn.md")):
        with pytest.raises(OpenApiError) as both:
            reading.read_file(demo_state, small, "handbook", file_id, path)
        assert both.value.code == "VALIDATION_ERROR"


def test_superseded_relation_and_shared_tags_are_weaker(demo_state: KnowledgeState, reader: Reader) -> None:
    old = reading.read_file(demo_state, reader, "handbook", None, "pages/finance/travel-policy-2023.md")
    related = reading.read_related(demo_state, reader, "handbook", old["file"]["fileId"], None, 100)
    types = {(i["path"], i["relationType"]) for i in related["items"]}
    assert ("pages/finance/travel-policy-2025.md", "references") in types
    tags = [i["weight"] for i in related["items"] if i["relationType"] == "shared_tag"]
    real = [i["weight"] for i in related["items"] if i["relationType"] != "shared_tag"]
    assert tags and max(tags) < min(real)


def test_expand_graph_depth_bounds(demo_state: KnowledgeState, reader: Reader) -> None:
    seed = source_file_id("handbook", "pages/hr/onboarding.md")
    with pytest.raises(OpenApiError):
        reading.expand_graph(demo_state, reader, "handbook", seed, 3, None, None, None)
    two = reading.expand_graph(demo_state, reader, "handbook", seed, 2, 2, None, None)
    assert max(r["depth"] for r in two["relationships"]) == 2
    assert len({r["fileId"] for r in two["relationships"]}) == len(two["relationships"])
