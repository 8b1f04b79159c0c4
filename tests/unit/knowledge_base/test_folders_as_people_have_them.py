"""A messy folder folded into the store: relations by the one link rule, navigation pages,
the generated root index, derived fields in the metadata, search by exact path or title only."""

from __future__ import annotations

from pathlib import Path

from knowledge_base.domain.search import SearchIndex
from knowledge_base.service_layer.projection import KnowledgeState
from knowledge_base.service_layer.reading import Reader, get_file, read_file

from clctl.kb import apply_events, load_folder
from tests.unit.knowledge_base.conftest import fold

FOLDER = {
    "README.md": "# Field guide\n\nStart at [install](/docs/guide/install) and [[Deploying]].\n",
    "guide/_index.md": "+++\ntitle = \"Guide section\"\n+++\nAll about installing and deploying.\n",
    "guide/install.md": "---\ntitle: Install\nrelated: [deploy.md]\n---\nInstall the widget first.\n",
    "guide/deploy.md": "Deploying the widget: see [[Install|installation]] ![[arch.png]] [gone](gone.md).\n",
    "guide/arch.png": "PNG",
    "SUMMARY.md": "# Summary\n\n- [Install](guide/install.md)\n",
}


def state_of(tmp_path: Path, files: dict[str, str], link_root: str = "") -> KnowledgeState:
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    state = KnowledgeState()
    fold(state, apply_events("kb", "Field", ["dev"], load_folder(tmp_path, 10_000, link_root=link_root), None))
    return state


def test_relations_follow_the_link_rule_and_skip_navigation(tmp_path: Path) -> None:
    view = state_of(tmp_path, FOLDER, link_root="/docs").view("kb")
    assert view is not None
    relations = {(p, r.target_path, r.relation_type, r.direction) for p, rels in view.relations.items() for r in rels}
    assert relations == {
        ("guide/install.md", "guide/deploy.md", "related", "outgoing"),
        ("guide/deploy.md", "guide/install.md", "related", "incoming"),
        ("guide/deploy.md", "guide/install.md", "references", "outgoing"),  # the wikilink, stronger
        ("guide/install.md", "guide/deploy.md", "references", "incoming"),
    }  # no relation to the navigation pages, the image or the dangling link
    kinds = {p: (f.kind, f.navigation) for p, f in view.files.items() if not p.startswith("_")}
    assert kinds["README.md"] == ("index", True) and kinds["SUMMARY.md"] == ("index", True)
    assert kinds["guide/_index.md"] == ("index", True) and kinds["guide/deploy.md"] == ("document", False)
    assert "index.md" not in view.files and "guide/index.md" not in view.files  # they have pages of their own


def test_a_root_index_is_generated_when_the_folder_has_none(tmp_path: Path) -> None:
    view = state_of(tmp_path, {"a/b.md": "# B\n", "c.md": "# C\n"}).view("kb")
    assert view is not None
    root = view.files["index.md"]
    assert (root.kind, root.navigation, root.source) == ("directory_index", True, False)
    assert root.content == "# Field\n\n- [a/](a/index.md)\n- [C](c.md)\n"
    assert view.files["a/index.md"].kind == "directory_index"


def test_derived_fields_are_in_the_metadata(tmp_path: Path) -> None:
    state = state_of(tmp_path, FOLDER)
    reader = Reader("dev", "/openapi/v2/knowledge-bases", 1_048_576, 50)
    view = state.view("kb")
    assert view is not None
    deploy = get_file(state, reader, "kb", view.files["guide/deploy.md"].file_id)
    assert deploy["title"] == "deploy" and deploy["derivedFields"] == ["title", "description"]
    assert deploy["description"].startswith("Deploying the widget: see installation")
    install = read_file(state, reader, "kb", None, "guide/install.md")["file"]
    assert install["derivedFields"] == ["description"] and install["frontmatter"]["related"] == ["deploy.md"]


def test_navigation_pages_answer_only_their_exact_path_or_title(tmp_path: Path) -> None:
    view = state_of(tmp_path, FOLDER).view("kb")
    assert view is not None
    index = SearchIndex(view, 700)

    def found(query: str) -> list[str]:
        return [h.file.path for h in index.search(query, "file", vectors=None).hits]

    for query in ("installing and deploying", "widget", "summary install", "guide"):
        assert not [p for p in found(query) if view.files[p].navigation], query
    assert found("Guide section")[0] == "guide/_index.md"
    assert found("README.md") == ["README.md"]
    assert found("guide/_index.md")[0] == "guide/_index.md"
    assert found("Field guide")[0] == "README.md"
    hit = index.search("SUMMARY.md", "graph", vectors=None, graph_depth=1).hits[0]  # no relations: no crash
    assert hit.file.path == "SUMMARY.md"


def test_the_link_root_survives_a_checkpoint(tmp_path: Path) -> None:
    state = state_of(tmp_path, {"a.md": "[b](/docs/b)", "b.md": "# B\n"}, link_root="/docs")
    restored = KnowledgeState()
    restored.restore_checkpoint(state.checkpoint_data())
    view = restored.view("kb")
    assert view is not None and [r.target_path for r in view.relations["a.md"]] == ["b.md"]
    assert state.snapshot()["bases"]["kb"]["linkRoot"] == "/docs"
