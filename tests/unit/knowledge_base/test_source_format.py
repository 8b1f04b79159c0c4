"""The source format: frontmatter rules, links, the --strict refusal listing every problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from bkn_common.domain.kb_links import LinkRef, LinkResolver, body_links
from bkn_common.domain.kb_source import parse_source
from clctl.kb import KnowledgeBaseRefused, apply_events, load_folder


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


GOOD = "---\ntitle: A\ndescription: d\ntags: [x]\n---\n# A\n"


def test_links_resolve_relative_to_the_file_and_skip_external_and_code() -> None:
    body = "[b](b.md) [up](../c.md#part) [ext](https://x.org) [anchor](#top)\n```\n[no](z.md)\n```\n"
    resolver = LinkResolver(["pages/hr/a.md", "pages/hr/b.md", "pages/c.md"])
    found = [resolver.resolve("pages/hr/a.md", ref) for ref in body_links(body)]
    assert [(r.outcome, r.path) for r in found] == [
        ("file", "pages/hr/b.md"), ("file", "pages/c.md"), ("external", None), ("anchor", None)]
    outside = resolver.resolve("pages/a.md", LinkRef("../../x.md", 1))
    assert (outside.outcome, outside.path) == ("outside", "../x.md")


def test_pages_need_title_description_and_tags() -> None:
    problems = parse_source("pages/a.md", "---\ntitle: 3\n---\nx").problems
    assert "pages/a.md: frontmatter title must be a string" in problems
    assert "pages/a.md: frontmatter description is required (a non-empty string)" in problems
    assert not parse_source("notes/a.md", "no frontmatter at all").problems  # outside pages/


def test_a_folder_is_refused_with_every_problem(tmp_path: Path) -> None:
    folder = write(tmp_path, {
        "pages/a.md": "---\ntitle: [x\n---\n",
        "pages/b.md": GOOD + "[out](../../../etc.md) [gone](missing.md)",
        "pages/c.md": GOOD + "x" * 300,
        "_index/x.md": GOOD,
    })
    with pytest.raises(KnowledgeBaseRefused) as refused:
        load_folder(folder, 200, strict=True)
    text = "\n".join(refused.value.problems)
    for expected in ("pages/a.md: frontmatter is not valid YAML", "points outside the knowledge base",
                     "'pages/missing.md' names no file", "over the size limit of 200 bytes",
                     "_index/ is reserved", "index.md: a knowledge base needs an index.md"):
        assert expected in text


def test_revision_moves_only_when_readable_content_changes(tmp_path: Path) -> None:
    folder = write(tmp_path, {"index.md": "# i\n", "pages/a.md": GOOD, "pages/b.md": GOOD})
    first = apply_events("kb", "KB", ["dev"], load_folder(folder, 10_000), None)
    base = first[-1]
    assert base.content_revision == 1 and len(first) == 4  # type: ignore[attr-defined]
    same = apply_events("kb", "", ["dev", "ana"], load_folder(folder, 10_000), base)  # type: ignore[arg-type]
    assert len(same) == 1 and same[-1].content_revision == 1 and same[-1].name == "KB"  # type: ignore[attr-defined]
    (folder / "pages/b.md").unlink()
    (folder / "pages/a.md").write_text(GOOD + "more\n")
    changed = apply_events("kb", "", ["dev"], load_folder(folder, 10_000), base)  # type: ignore[arg-type]
    kinds = [type(e).__name__ for e in changed]
    assert kinds == ["KnowledgeFileUpserted", "KnowledgeFileRemoved", "KnowledgeBaseApplied"]
    assert changed[-1].content_revision == 2  # type: ignore[attr-defined]


def test_a_new_link_root_moves_the_revision_and_old_records_mean_none(tmp_path: Path) -> None:
    from bkn_common.contracts.events import KnowledgeBaseApplied, decode_event, encode_event

    folder = write(tmp_path, {"a.md": "[b](/docs/b)", "b.md": "# B"})
    first = apply_events("kb", "KB", ["dev"], load_folder(folder, 10_000), None)[-1]
    assert isinstance(first, KnowledgeBaseApplied) and first.link_root == ""
    moved = apply_events("kb", "", ["dev"], load_folder(folder, 10_000, link_root="/docs"), first)
    assert len(moved) == 1 and moved[-1].content_revision == 2 and moved[-1].link_root == "/docs"  # type: ignore[attr-defined]
    older = encode_event(first).replace(b',"link_root":""', b"")  # a record from before the field
    assert b"link_root" not in older and decode_event(older).event == first
